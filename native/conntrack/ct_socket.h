// The addon's NetlinkSocket (NETLINK_NETFILTER, opened inside a netns) plus the receive loop the
// conntrack delete needs: hand every message of every datagram to a callback until it says done.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "netlink/socket.h"

namespace kpn::ct {

class CtSocket {
 public:
  // netnsPath empty = the calling process's namespace. False with error()/errnum() set.
  bool Open(const std::string& netnsPath);
  uint32_t ReserveSeq(uint32_t count) { return sock_.ReserveSeq(count); }
  bool Send(const std::vector<uint8_t>& buf);
  // Calls onMsg(type, seq, body, bodyLen) for each netlink message until it returns false.
  // False on a receive error or a malformed datagram.
  using MsgFn = std::function<bool(uint16_t, uint32_t, const uint8_t*, size_t)>;
  bool Receive(const MsgFn& onMsg);

  const std::string& error() const { return error_; }
  int errnum() const { return errno_; }

 private:
  bool Fail(const std::string& what, int err);
  NetlinkSocket sock_;
  std::vector<uint8_t> rx_;
  std::string error_;
  int errno_ = 0;
};

}  // namespace kpn::ct
