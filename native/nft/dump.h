// Reads nftables state back from the kernel (tables; one table's chains, rules, sets, elements).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../netlink_socket.h"
#include "../nl_request.h"
#include "../txn_types.h"

namespace kpn {
namespace nft {

struct TableId { uint8_t family = 0; std::string name; };

struct ChainInfo {
  std::string name;
  uint64_t handle = 0;
  bool hasHook = false;
  uint32_t hook = 0;
  int32_t priority = 0;
  std::string type;
  bool hasPolicy = false;
  uint32_t policy = 0;
};

struct RuleInfo { std::string chain; uint64_t handle = 0; std::vector<std::string> exprs; };

struct ElemInfo {
  Bytes key, keyEnd;
  uint32_t flags = 0;
  bool hasVerdict = false;
  Verdict verdict;
  Bytes data;  // empty = none
};

struct SetInfo {
  std::string name;
  uint32_t flags = 0, keyType = 0, keyLen = 0, dataType = 0, dataLen = 0;
  std::vector<ElemInfo> elements;
};

struct TableDump {
  std::vector<ChainInfo> chains;
  std::vector<RuleInfo> rules;
  std::vector<SetInfo> sets;
};

RequestError ListTables(NetlinkSocket& sock, std::vector<TableId>* out);
// ENOENT if the table does not exist. Retries dumps the kernel flags as interrupted.
// withElements false: sets are listed without their elements (start-up adoption needs only names and kinds).
RequestError DumpTable(NetlinkSocket& sock, uint8_t family, const std::string& table, bool withElements, TableDump* out);

}  // namespace nft
}  // namespace kpn
