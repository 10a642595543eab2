#include "nl_request.h"

#include <cerrno>
#include <cstring>

#include "nl_attr.h"

namespace kpn {

namespace {

RequestError Errno(int e, const std::string& what) {
  return RequestError{e, what + ": " + std::strerror(e)};
}

// Reads replies for `seq` until `finished` (set by the visitor) or an error.
RequestError ReadReplies(NetlinkSocket& sock, uint32_t seq, const MsgHandler& onMsg) {
  std::vector<uint8_t> buf;
  RequestError result;
  bool finished = false, interrupted = false;
  while (!finished) {
    if (int e = sock.RecvOne(&buf)) return Errno(e, "netlink receive");
    bool ok = ForEachMsg(buf.data(), buf.size(), [&](const nlmsghdr& h, const uint8_t* p, size_t n) {
      if (h.nlmsg_seq != seq) return true;  // stale reply of an earlier request
      if (h.nlmsg_flags & NLM_F_DUMP_INTR) interrupted = true;
      if (h.nlmsg_type == NLMSG_DONE) { finished = true; return false; }
      if (h.nlmsg_type == NLMSG_ERROR) {
        NlAck ack;
        if (!ParseAck(h, p, n, &ack)) { result = RequestError{EPROTO, "malformed ack"}; finished = true; return false; }
        if (ack.error != 0) {
          result = RequestError{ack.error, ack.extack.empty() ? std::strerror(ack.error) : ack.extack};
        }
        finished = true;
        return false;
      }
      onMsg(h, p, n);
      return true;
    });
    if (!ok) return RequestError{EPROTO, "malformed netlink reply"};
  }
  if (result.errnum == 0 && interrupted) return RequestError{EINTR, "dump interrupted by a concurrent change"};
  return result;
}

}  // namespace

RequestError RunDump(NetlinkSocket& sock, const std::vector<uint8_t>& req, uint32_t seq, const MsgHandler& onMsg) {
  if (int e = sock.SendOne(req.data(), req.size())) return Errno(e, "netlink send");
  return ReadReplies(sock, seq, onMsg);
}

RequestError RunRequest(NetlinkSocket& sock, const std::vector<uint8_t>& req, uint32_t seq, const MsgHandler& onMsg) {
  if (int e = sock.SendOne(req.data(), req.size())) return Errno(e, "netlink send");
  return ReadReplies(sock, seq, onMsg);
}

}  // namespace kpn
