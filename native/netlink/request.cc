#include "netlink/request.h"

#include <cerrno>
#include <cstring>

#include "netlink/attr.h"

namespace kpn {

namespace {

RequestError Errno(int e, const std::string& what) {
  return RequestError{e, what + ": " + std::strerror(e)};
}

// Reads replies for `seq` until the collector is finished or a receive fails.
RequestError ReadReplies(NetlinkSocket& sock, uint32_t seq, const MsgHandler& onMsg) {
  std::vector<uint8_t> buf;
  ReplyCollector replies(seq, onMsg);
  while (!replies.finished()) {
    if (int e = sock.RecvOne(&buf)) return Errno(e, "netlink receive");
    replies.Feed(buf.data(), buf.size());
  }
  return replies.result();
}

}  // namespace

bool ReplyCollector::OnMessage(const nlmsghdr& h, const uint8_t* p, size_t n) {
  if (h.nlmsg_seq != seq_) return true;  // stale reply of an earlier request
  if (h.nlmsg_flags & NLM_F_DUMP_INTR) interrupted_ = true;
  if (h.nlmsg_type == NLMSG_DONE) {
    finished_ = true;
    return false;
  }
  if (h.nlmsg_type == NLMSG_ERROR) {
    NlAck ack;
    if (!ParseAck(h, p, n, &ack)) {
      error_ = RequestError{EPROTO, "malformed ack"};
    } else if (ack.error != 0) {
      error_ = RequestError{ack.error, ack.extack.empty() ? std::strerror(ack.error) : ack.extack};
    }
    finished_ = true;
    return false;
  }
  onMsg_(h, p, n);
  return true;
}

bool ReplyCollector::Feed(const uint8_t* buf, size_t n) {
  if (finished_) return true;
  bool ok = ForEachMsg(buf, n, [&](const nlmsghdr& h, const uint8_t* p, size_t len) { return OnMessage(h, p, len); });
  if (ok) return true;
  error_ = RequestError{EPROTO, "malformed netlink reply"};
  finished_ = true;
  return false;
}

RequestError ReplyCollector::result() const {
  if (error_.errnum == 0 && interrupted_) return RequestError{EINTR, "dump interrupted by a concurrent change"};
  return error_;
}

RequestError RunDump(NetlinkSocket& sock, const std::vector<uint8_t>& req, uint32_t seq, const MsgHandler& onMsg) {
  if (int e = sock.SendOne(req.data(), req.size())) return Errno(e, "netlink send");
  return ReadReplies(sock, seq, onMsg);
}

RequestError RunRequest(NetlinkSocket& sock, const std::vector<uint8_t>& req, uint32_t seq, const MsgHandler& onMsg) {
  if (int e = sock.SendOne(req.data(), req.size())) return Errno(e, "netlink send");
  return ReadReplies(sock, seq, onMsg);
}

}  // namespace kpn
