// The kernel's answers to one send of IPVS op messages, read one datagram at a time. Every
// message carries its own sequence number, so an error maps to its op by seq - base. Only the
// send's last message asks for an ack (NLM_F_ACK); the kernel's genl_rcv walks every message of
// the skb and answers each failing one anyway (netlink_rcv_skb acks on error or NLM_F_ACK), so
// the last ack means every message before it was processed. Pure: apply.cc feeds it from the
// socket, the fuzz target fuzz_ipvs_replies.cc arbitrary bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kpn {
namespace ipvs {

struct ApplyError {
  size_t opIndex = 0;
  int errnum = 0;  // positive errno
  std::string extack;
};

struct SendReplies {
  uint32_t base = 0;     // the first message's seq
  uint32_t count = 0;    // messages in the send
  size_t firstOp = 0;    // the op index of the first message
  bool done = false;     // the last message's reply arrived
  uint32_t answered = 0; // messages known processed: one past the highest seq answered
};

// Handles every message of one datagram; false when it is malformed (the caller stops reading).
bool FeedApplyReplies(const uint8_t* buf, size_t n, SendReplies& st, std::vector<ApplyError>* errors);

}  // namespace ipvs
}  // namespace kpn
