#include "ipvs/apply.h"

#include <linux/netlink.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ipvs/encode.h"

namespace kpn {
namespace ipvs {

namespace {

// Encodes ops [first, end) into one send's bytes, stopping at the limits; returns the end.
size_t EncodeSend(NlBuilder& b, uint16_t familyId, const std::vector<Op>& ops, size_t first, uint32_t base) {
  size_t i = first;
  while (i < ops.size() && i - first < kMaxSendMessages && b.size() < kMaxSendBytes) {
    EncodeOp(b, familyId, ops[i], 0, base + uint32_t(i - first));
    i++;
  }
  // Only the last message asks for an ack: it tells us the whole send was processed.
  size_t lastOff = 0;
  size_t off = 0;
  while (off < b.size()) {  // walk to the last message's header (our own bytes: lengths are sound)
    lastOff = off;
    uint32_t len;
    std::memcpy(&len, b.data().data() + off, 4);
    off += NLMSG_ALIGN(len);
  }
  uint16_t flags;
  std::memcpy(&flags, b.data().data() + lastOff + 6, 2);
  flags |= NLM_F_ACK;
  std::memcpy(b.mutable_data().data() + lastOff + 6, &flags, 2);
  return i;
}

// Reads until the send's last reply. On a receive failure, every op not yet answered is reported
// with that errno: whether the kernel applied it is unknown, so the caller must not count it.
void CollectReplies(NetlinkSocket& sock, SendReplies& st, std::vector<ApplyError>* errors) {
  std::vector<uint8_t> buf;
  while (!st.done) {
    int e = sock.RecvOne(&buf);
    if (e == 0 && FeedApplyReplies(buf.data(), buf.size(), st, errors)) continue;
    if (e == 0) e = EPROTO;
    std::string why = e == ENOBUFS ? "the kernel dropped replies (receive queue overflow)"
                    : e == EAGAIN ? "timed out waiting for the kernel's replies"
                    : e == EPROTO ? "malformed netlink reply" : std::string("receiving replies: ") + std::strerror(e);
    for (uint32_t rel = st.answered; rel < st.count; rel++) errors->push_back(ApplyError{st.firstOp + rel, e, why});
    return;
  }
}

}  // namespace

ApplyResult Apply(NetlinkSocket& sock, uint16_t familyId, const std::vector<Op>& ops) {
  ApplyResult res;
  if (int e = sock.EnsureRecvBuffer((size_t(4) << 20) + size_t(kMaxSendMessages) * 1024)) {
    res.fatalErrno = e;
    res.fatal = std::string("SO_RCVBUFFORCE: ") + std::strerror(e);
    return res;
  }
  size_t first = 0;
  NlBuilder b;
  while (first < ops.size()) {
    b.mutable_data().clear();
    uint32_t count = uint32_t(std::min(ops.size() - first, size_t(kMaxSendMessages)));
    uint32_t base = sock.ReserveSeq(count);
    size_t end = EncodeSend(b, familyId, ops, first, base);
    SendReplies st{base, uint32_t(end - first), first};
    if (int e = sock.SendOne(b.data().data(), b.size())) {
      if (res.sends == 0) {
        res.fatalErrno = e;
        res.fatal = std::string("sendmsg: ") + std::strerror(e);
        return res;
      }
      for (size_t i = first; i < ops.size(); i++) res.errors.push_back(ApplyError{i, e, std::string("sendmsg: ") + std::strerror(e)});
      break;
    }
    res.sends++;
    res.bytes += b.size();
    CollectReplies(sock, st, &res.errors);
    first = end;
  }
  // One error per op, in op order (a kernel answers each message once; this keeps a count sane regardless).
  std::stable_sort(res.errors.begin(), res.errors.end(), [](const ApplyError& a, const ApplyError& b) { return a.opIndex < b.opIndex; });
  res.errors.erase(std::unique(res.errors.begin(), res.errors.end(),
                               [](const ApplyError& a, const ApplyError& b) { return a.opIndex == b.opIndex; }),
                   res.errors.end());
  res.applied = uint32_t(ops.size() - res.errors.size());
  return res;
}

}  // namespace ipvs
}  // namespace kpn
