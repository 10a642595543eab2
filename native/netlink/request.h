// Request/response helpers over a NetlinkSocket, shared by nftables and conntrack code.
#pragma once
#include <linux/netlink.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "netlink/socket.h"

namespace kpn {

// Called for each data message of the reply (payload = after the nlmsghdr).
using MsgHandler = std::function<void(const nlmsghdr&, const uint8_t* payload, size_t len)>;

struct RequestError {
  int errnum = 0;  // positive errno, 0 = success
  std::string message;
};

// Collects the replies to one request (sequence `seq`), one datagram at a time: data messages go
// to onMsg, NLMSG_DONE or NLMSG_ERROR (an ack or an error) finish it, other sequences are skipped.
// Pure (no socket): RunDump/RunRequest feed it, and the fuzz target native/fuzz/fuzz_nl_acks.cc.
class ReplyCollector {
 public:
  ReplyCollector(uint32_t seq, MsgHandler onMsg) : seq_(seq), onMsg_(std::move(onMsg)) {}
  // False when the datagram is malformed (then finished(), with EPROTO).
  bool Feed(const uint8_t* buf, size_t n);
  bool finished() const { return finished_; }
  // The outcome once finished: the kernel's error, EPROTO for a malformed reply, EINTR for a dump
  // the kernel flagged as interrupted, else success.
  RequestError result() const;

 private:
  bool OnMessage(const nlmsghdr& h, const uint8_t* p, size_t n);
  uint32_t seq_;
  MsgHandler onMsg_;
  RequestError error_;
  bool finished_ = false, interrupted_ = false;
};

// Sends one dump request (NLM_F_DUMP set by the caller) with sequence `seq` and feeds every
// reply message to onMsg until NLMSG_DONE. EINTR if the kernel flagged the dump as interrupted
// (the ruleset changed meanwhile; retry).
RequestError RunDump(NetlinkSocket& sock, const std::vector<uint8_t>& req, uint32_t seq, const MsgHandler& onMsg);

// Sends one request that carries NLM_F_ACK and waits for its ack, feeding data replies to onMsg.
RequestError RunRequest(NetlinkSocket& sock, const std::vector<uint8_t>& req, uint32_t seq, const MsgHandler& onMsg);

}  // namespace kpn
