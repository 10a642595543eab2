// Reads nftables state back from the kernel (tables; one table's chains, rules, sets, elements).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "netlink/request.h"
#include "netlink/socket.h"
#include "nft/dump_parse.h"

namespace kpn {
namespace nft {

RequestError ListTables(NetlinkSocket& sock, std::vector<TableId>* out);
// The ruleset generation (NFT_MSG_GETGEN): every committed batch, ours or anyone's, adds one.
RequestError GetGeneration(NetlinkSocket& sock, uint32_t* out);
// ENOENT if the table does not exist. Retries dumps the kernel flags as interrupted.
// withElements false: sets are listed without their elements (start-up adoption needs only names and kinds).
// onlySet: that set alone, with its elements, and no chains or rules (ENOENT if it does not exist).
RequestError DumpTable(NetlinkSocket& sock, uint8_t family, const std::string& table, bool withElements, TableDump* out,
                       const std::string& onlySet = "");

}  // namespace nft
}  // namespace kpn
