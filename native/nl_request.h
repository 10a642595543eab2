// Request/response helpers over a NetlinkSocket, shared by nftables and conntrack code.
#pragma once
#include <linux/netlink.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "netlink_socket.h"

namespace kpn {

// Called for each data message of the reply (payload = after the nlmsghdr).
using MsgHandler = std::function<void(const nlmsghdr&, const uint8_t* payload, size_t len)>;

struct RequestError {
  int errnum = 0;  // positive errno, 0 = success
  std::string message;
};

// Sends one dump request (NLM_F_DUMP set by the caller) with sequence `seq` and feeds every
// reply message to onMsg until NLMSG_DONE. EINTR if the kernel flagged the dump as interrupted
// (the ruleset changed meanwhile; retry).
RequestError RunDump(NetlinkSocket& sock, const std::vector<uint8_t>& req, uint32_t seq, const MsgHandler& onMsg);

// Sends one request that carries NLM_F_ACK and waits for its ack, feeding data replies to onMsg.
RequestError RunRequest(NetlinkSocket& sock, const std::vector<uint8_t>& req, uint32_t seq, const MsgHandler& onMsg);

}  // namespace kpn
