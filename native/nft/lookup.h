// Look-ups of single objects, never a listing of the table: set elements by key
// (NFT_MSG_GETSETELEM as a plain request) and one chain's rules (a rule dump filtered by chain).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "netlink/request.h"
#include "netlink/socket.h"
#include "nft/dump_parse.h"

namespace kpn {
namespace nft {

struct ElemLookup {
  bool found = false;
  ElemInfo elem;  // when found: as the kernel holds it (key, data or verdict, flags)
};

// One request per key. ENOENT naming the set when the table or set does not exist; otherwise one
// entry per key, not found where the kernel answers that key with ENOENT. Any other error for a
// key fails the call, naming the key's index.
RequestError GetElements(NetlinkSocket& sock, uint8_t family, const std::string& table, const std::string& set,
                         const std::vector<Bytes>& keys, std::vector<ElemLookup>* out);

// ENOENT naming the chain when it (or the table) does not exist. The rules in chain order, each
// with its expressions' and userdata's bytes (RuleInfo::exprsRaw, userdata).
RequestError DumpChainRules(NetlinkSocket& sock, uint8_t family, const std::string& table, const std::string& chain,
                            std::vector<RuleInfo>* out);

}  // namespace nft
}  // namespace kpn
