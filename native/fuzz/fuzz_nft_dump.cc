// libFuzzer entry: one datagram of an nftables dump reply, as dump.cc receives it. Every message is
// walked (ForEachMsg) and every nftables body decoded by each of the object parsers (dump.cc picks
// the parser by the request, not by the reply's type, so each must survive any body). Rules keep
// their expressions' bytes, and each is compared (nft/rule_match.h) with itself and with the rule
// before it, as Nft.dumpChain compares a dumped rule with the expected one.
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "netlink/attr.h"
#include "nft/dump_parse.h"
#include "nft/rule_match.h"

using namespace kpn::nft;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<TableId> tables;
  TableDump dump;
  SetInfo set;
  kpn::ForEachMsg(data, size, [&](const nlmsghdr& h, const uint8_t* p, size_t n) {
    if ((h.nlmsg_type >> 8) != NFNL_SUBSYS_NFTABLES) return true;
    uint8_t family;
    const uint8_t* attrs;
    size_t len;
    if (!NftBody(p, n, &family, &attrs, &len)) return true;
    ParseTable(&tables, family, attrs, len);
    ParseChain(&dump, attrs, len);
    ParseRule(&dump, attrs, len, true);
    ParseSet(&dump, attrs, len);
    ParseElems(&set, attrs, len);
    return true;
  });
  // Read everything back, as the N-API layer does when it converts the dump.
  volatile size_t sum = 0;
  for (const TableId& t : tables) sum += t.name.size();
  for (const ChainInfo& c : dump.chains) sum += c.name.size() + c.type.size();
  for (const RuleInfo& r : dump.rules) for (const auto& e : r.exprs) sum += e.size();
  for (const RuleInfo& r : dump.rules) for (const auto& j : r.jumps) sum += j.size();
  for (size_t i = 0; i < dump.rules.size(); i++) {
    const kpn::Bytes& x = dump.rules[i].exprsRaw;
    const kpn::Bytes& y = dump.rules[i > 0 ? i - 1 : i].exprsRaw;
    sum += ExprsCover(x.data(), x.size(), x.data(), x.size());
    sum += ExprsCover(x.data(), x.size(), y.data(), y.size());
    sum += ExprsCover(y.data(), y.size(), x.data(), x.size());
  }
  for (const ElemInfo& e : set.elements) sum += e.key.size() + e.keyEnd.size() + e.data.size() + e.verdict.chain.size();
  (void)sum;
  return 0;
}
