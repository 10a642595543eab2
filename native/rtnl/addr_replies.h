// The replies to a batch of address messages, each sent with NLM_F_ACK and its own sequence number
// (base + op index): one NLMSG_ERROR per message, error 0 or -errno. rtnetlink goes on with the next
// message after a failure (netlink_rcv_skb), so every op is acked and the errors map back to ops by
// sequence number. Pure (no socket): the fuzz target feeds it datagrams.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "rtnl/rtnl_types.h"

namespace kpn {
namespace rtnl {

struct AddrBatchReplies {
  AddrBatchReplies(uint32_t base, size_t first, size_t count) : base(base), first(first), acked(count, false), pending(count) {}
  uint32_t base;          // the sequence number of op `first`
  size_t first;           // the index of the batch's first op among all ops
  std::vector<bool> acked;
  size_t pending;
  std::vector<AddrOpError> errors;
  bool done() const { return pending == 0; }
};

// Reads one datagram; false when it is malformed (a message or an ack that cannot be parsed).
// Replies of other sequences (an earlier request's) and repeated acks are ignored.
bool FeedAddrReplies(const uint8_t* buf, size_t n, AddrBatchReplies* st);

// Every op not acked yet gets this error (the replies were lost or never came).
void FailPending(AddrBatchReplies* st, int errnum, const char* why);

}  // namespace rtnl
}  // namespace kpn
