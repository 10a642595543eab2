// Whether a rule the kernel holds is the rule we would send: pure, over the netlink bytes of both
// (shared by nft/dump.cc's chain dump and the fuzz target native/fuzz/fuzz_nft_dump.cc).
#pragma once
#include <cstddef>
#include <cstdint>

#include "txn/types.h"

namespace kpn {
namespace nft {

// The NFTA_RULE_EXPRESSIONS payload (its NFTA_LIST_ELEM entries) we send for these expressions,
// with what the kernel adds to them on its own (nat's flags): what a dump of the rule holds.
Bytes EncodeRuleExprs(const std::vector<Expr>& exprs);

// True when `have` (a dumped rule's NFTA_RULE_EXPRESSIONS payload) holds as many expressions as
// `want` (EncodeRuleExprs) and each, in order, carries every attribute of its counterpart with
// the same bytes, nests compared the same way. Attributes only the kernel's side has are not
// compared: it fills in some of its own (a counter's values, nat's addr_max and flags). False
// on malformed bytes on either side, or nests deeper than 8.
bool ExprsCover(const uint8_t* want, size_t wantLen, const uint8_t* have, size_t haveLen);

}  // namespace nft
}  // namespace kpn
