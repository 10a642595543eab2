#include "conntrack/ct_socket.h"

#include <linux/netlink.h>

#include <cerrno>
#include <cstring>

#include "netlink/attr.h"

namespace kpn::ct {

bool CtSocket::Fail(const std::string& what, int err) {
  errno_ = err;
  error_ = what + ": " + std::strerror(err);
  return false;
}

bool CtSocket::Open(const std::string& netnsPath) {
  std::string what;
  int e = sock_.Open(NETLINK_NETFILTER, netnsPath, &what);
  return e == 0 || Fail(what, e);
}

bool CtSocket::Send(const std::vector<uint8_t>& buf) {
  int e = sock_.SendOne(buf.data(), buf.size());
  return e == 0 || Fail("send to ctnetlink", e);
}

bool CtSocket::Receive(const MsgFn& onMsg) {
  for (;;) {
    int e = sock_.RecvOne(&rx_);
    if (e == EAGAIN) return Fail("no reply from ctnetlink within the timeout", e);
    if (e != 0) return Fail("receive from ctnetlink", e);
    bool done = false;
    bool wellFormed = ForEachMsg(rx_.data(), rx_.size(), [&](const nlmsghdr& h, const uint8_t* body, size_t len) {
      done = !onMsg(h.nlmsg_type, h.nlmsg_seq, body, len);
      return !done;
    });
    if (!wellFormed) return Fail("malformed ctnetlink reply", EPROTO);
    if (done) return true;
  }
}

}  // namespace kpn::ct
