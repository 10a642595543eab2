#include "conntrack/ct_list.h"

#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netlink.h>

#include <cerrno>
#include <cstring>

#include "conntrack/ct_messages.h"
#include "conntrack/ct_socket.h"
#include "netlink/builder.h"

namespace kpn::ct {

namespace {

constexpr uint16_t kCtNew = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW;

bool Fail(Failure* f, const std::string& msg, int err) {
  f->message = msg;
  f->errnum = err;
  return false;
}

}  // namespace

bool ListDnatFlows(const std::string& netnsPath, const ListRequest& req, ListResult* out, Failure* failure) {
  CtSocket sock;
  if (!sock.Open(netnsPath)) return Fail(failure, sock.error(), sock.errnum());
  uint32_t seq = sock.ReserveSeq(1);
  NlBuilder b;
  AppendListRequest(b, req.family, req.proto, seq);
  if (!b.ok()) return Fail(failure, "conntrack list request too large", EMSGSIZE);
  if (!sock.Send(b.data())) return Fail(failure, sock.error(), sock.errnum());
  int kernelErr = 0;
  bool parseErr = false;
  // Returning false stops reading; the rest of the dump is dropped with the socket.
  bool ok = sock.Receive([&](uint16_t type, uint32_t s, const uint8_t* body, size_t len) {
    if (s != seq) return true;
    if (type == NLMSG_DONE || type == NLMSG_ERROR) {
      int e = ReplyErrorCode(body, len);
      if (e < 0) kernelErr = -e;
      return false;
    }
    if (type != kCtNew) return true;
    out->received++;
    DnatFlow flow;
    FlowKind kind = ParseDnatFlow(body, len, req.family, req.proto, &flow);
    if (kind == FlowKind::kMalformed) { parseErr = true; return false; }
    if (kind == FlowKind::kOther) return true;
    if (out->flows.size() >= req.max) { out->truncated = true; return false; }
    out->flows.push_back(flow);
    return true;
  });
  if (!ok) return Fail(failure, sock.error(), sock.errnum());
  if (kernelErr) return Fail(failure, std::string("conntrack dump refused by the kernel: ") + std::strerror(kernelErr), kernelErr);
  if (parseErr) return Fail(failure, "malformed conntrack entry in the kernel's reply", EPROTO);
  return true;
}

}  // namespace kpn::ct
