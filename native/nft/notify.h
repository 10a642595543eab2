// Parsing of nftables change notifications (the datagrams a socket joined to NFNLGRP_NFTABLES
// receives). Pure code, fuzzed: every length read from the datagram is checked before use.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kpn {
namespace nft {

enum class ChangeOp : uint8_t { kAdd, kDelete, kUnknown };
enum class ChangeKind : uint8_t { kTable, kChain, kRule, kSet, kElement, kObj, kFlowtable, kUnknown };

// One changed object, or (after grouping) several changes to the same chain/set.
struct Change {
  ChangeOp op = ChangeOp::kUnknown;
  ChangeKind kind = ChangeKind::kUnknown;
  uint8_t family = 0;     // NFPROTO_*
  std::string table;      // empty for an unknown message
  std::string name;       // chain (table-less kinds: the object's own name); empty for tables
  uint32_t count = 1;     // elements in an element message; summed when grouped
  uint16_t msgType = 0;   // the nftables message type (NFT_MSG_*), kept for unknown ones
};

// What one netlink message of a notification datagram says.
struct NotifyMsg {
  enum class Type : uint8_t { kChange, kNewGen, kIgnored } type = Type::kIgnored;
  uint32_t portId = 0;    // nlmsg_pid: the port id of the socket whose commit made the change
  Change change;          // kChange
  // kNewGen: the commit is complete.
  bool hasGenId = false, hasPid = false;
  uint32_t genId = 0, pid = 0;
  std::string comm;       // NFTA_GEN_PROC_NAME, empty if absent
};

// Appends the messages of one datagram to *out. Messages that are not nftables messages, and
// netlink control messages, are kIgnored. An nftables message whose type is unknown, or whose
// attributes are malformed, becomes a kChange with op/kind kUnknown (never dropped: it may be
// tampering this parser does not understand). Returns false if the datagram's framing is
// malformed (the messages before the bad one are still appended).
bool ParseNotifyDatagram(const uint8_t* data, size_t len, std::vector<NotifyMsg>* out);

const char* ChangeOpName(ChangeOp op);
const char* ChangeKindName(ChangeKind kind);

}  // namespace nft
}  // namespace kpn
