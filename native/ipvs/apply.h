// Applies decoded IPVS ops: one generic netlink message per op, as many messages per sendmsg as
// the limits below allow (the kernel's genl_rcv processes every message of an skb, in order). Not
// atomic: IPVS has no transactions, so each op succeeds or fails on its own and every failure is
// reported with its op index and errno.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ipvs/apply_replies.h"
#include "ipvs/types.h"
#include "netlink/socket.h"

namespace kpn {
namespace ipvs {

struct ApplyResult {
  uint32_t applied = 0;
  uint32_t sends = 0;
  uint64_t bytes = 0;
  std::vector<ApplyError> errors;  // in op order
  // Set when nothing could be sent (the first send failed): the call rejects with it.
  int fatalErrno = 0;
  std::string fatal;
};

// Limits of one send: its bytes, and its messages (each may come back as a ~1 KiB error skb,
// which the receive buffer must hold until we read it).
constexpr size_t kMaxSendBytes = 4 << 20;
constexpr uint32_t kMaxSendMessages = 16384;

ApplyResult Apply(NetlinkSocket& sock, uint16_t familyId, const std::vector<Op>& ops);

}  // namespace ipvs
}  // namespace kpn
