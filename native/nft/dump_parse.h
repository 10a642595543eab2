// Decoding of the nftables objects a dump returns (tables, chains, rules, sets, elements): pure
// functions over one message body, shared by dump.cc and the fuzz target
// (native/fuzz/fuzz_nft_dump.cc). Nothing read from the kernel is trusted: a malformed message or
// attribute is skipped, never read past.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "txn/types.h"

namespace kpn {
namespace nft {

struct TableId { uint8_t family = 0; std::string name; };

struct ChainInfo {
  std::string table;
  std::string name;
  uint64_t handle = 0;
  bool hasHook = false;
  uint32_t hook = 0;
  int32_t priority = 0;
  std::string type;
  bool hasPolicy = false;
  uint32_t policy = 0;
};

struct RuleInfo {
  std::string chain;
  uint64_t handle = 0;
  std::vector<std::string> exprs;
  // The chains its immediate expressions jump or go to (NFT_JUMP/NFT_GOTO verdicts), in order:
  // what --cleanup needs to find the rules that refer to a chain, iptables-nft's `-j CHAIN` included.
  std::vector<std::string> jumps;
  // Kept by ParseRule only when asked (one chain's rules, compared with ours: nft/rule_match.h):
  // the NFTA_RULE_EXPRESSIONS payload and NFTA_RULE_USERDATA as the kernel sent them.
  Bytes exprsRaw, userdata;
};

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
  // A concatenation's field lengths as the kernel holds them (NFTA_SET_DESC_CONCAT; pipapo needs them).
  std::vector<uint32_t> concat;
  std::vector<ElemInfo> elements;
};

struct TableDump {
  std::vector<ChainInfo> chains;
  std::vector<RuleInfo> rules;
  std::vector<SetInfo> sets;
};

// The payload after the nfgenmsg of an nftables message, and the family it carries. False when
// the payload is too short to hold one.
bool NftBody(const uint8_t* p, size_t n, uint8_t* family, const uint8_t** attrs, size_t* len);

// Each appends what one NEW* message body (attributes after nfgenmsg) describes; a message that
// is malformed appends nothing (ParseElems: elements up to the malformed one).
void ParseTable(std::vector<TableId>* out, uint8_t family, const uint8_t* p, size_t n);
void ParseChain(TableDump* out, const uint8_t* p, size_t n);
void ParseRule(TableDump* out, const uint8_t* p, size_t n, bool keepRaw = false);
void ParseSet(TableDump* out, const uint8_t* p, size_t n);
void ParseElems(SetInfo* s, const uint8_t* p, size_t n);
// NFTA_GEN_ID of a NEWGEN message body; false when it is missing or not 4 bytes.
bool ParseGenId(const uint8_t* p, size_t n, uint32_t* out);

}  // namespace nft
}  // namespace kpn
