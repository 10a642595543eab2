#include "rtnl/rtnl_ops.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "netlink/builder.h"
#include "rtnl/addr_replies.h"
#include "rtnl/rtnl_messages.h"

namespace kpn {
namespace rtnl {

namespace {

RequestError Malformed(const char* what) { return RequestError{EPROTO, std::string("malformed ") + what + " in the kernel's reply"}; }

// Sends one chunk of ops [first, first+count) and reads its acks.
RequestError SendChunk(NetlinkSocket& sock, const std::vector<AddrOp>& ops, size_t first, size_t count,
                       std::vector<AddrOpError>* errors) {
  uint32_t base = sock.ReserveSeq(uint32_t(count));
  NlBuilder b;
  b.Reserve(count * 64);
  for (size_t i = 0; i < count; i++) AppendAddrOp(b, ops[first + i], base + uint32_t(i));
  if (int e = sock.EnsureRecvBuffer((size_t(4) << 20) + count * 1024)) return RequestError{e, std::string("SO_RCVBUFFORCE: ") + std::strerror(e)};
  if (int e = sock.SendOne(b.data().data(), b.size())) return RequestError{e, std::string("netlink send: ") + std::strerror(e)};
  AddrBatchReplies st(base, first, count);
  std::vector<uint8_t> buf;
  while (!st.done()) {
    if (int e = sock.RecvOne(&buf)) {
      FailPending(&st, e, e == ENOBUFS ? "the kernel dropped replies (receive queue overflow): outcome unknown"
                                       : "no reply from the kernel: outcome unknown");
      break;
    }
    if (!FeedAddrReplies(buf.data(), buf.size(), &st)) {
      FailPending(&st, EPROTO, "malformed reply from the kernel: outcome unknown");
      break;
    }
  }
  errors->insert(errors->end(), st.errors.begin(), st.errors.end());
  return RequestError{};
}

}  // namespace

RequestError GetLink(NetlinkSocket& sock, const std::string& name, LinkInfo* out) {
  uint32_t seq = sock.ReserveSeq(1);
  bool found = false, malformed = false;
  RequestError err = RunRequest(sock, GetLinkRequest(name, seq), seq, [&](const nlmsghdr& h, const uint8_t* p, size_t n) {
    ParseResult r = ParseLink(h, p, n, out);
    if (r == ParseResult::kMalformed) malformed = true;
    if (r == ParseResult::kOk) found = true;
  });
  if (err.errnum) return err;
  if (malformed) return Malformed("link");
  if (!found) return RequestError{EPROTO, "the kernel acknowledged the link request without the link"};
  return err;
}

RequestError CreateDummyLink(NetlinkSocket& sock, const std::string& name) {
  uint32_t seq = sock.ReserveSeq(1);
  return RunRequest(sock, NewDummyLinkRequest(name, seq), seq, [](const nlmsghdr&, const uint8_t*, size_t) {});
}

RequestError DeleteLink(NetlinkSocket& sock, const std::string& name) {
  uint32_t seq = sock.ReserveSeq(1);
  return RunRequest(sock, DelLinkRequest(name, seq), seq, [](const nlmsghdr&, const uint8_t*, size_t) {});
}

RequestError DumpAddrs(NetlinkSocket& sock, int32_t linkIndex, std::vector<AddrInfo>* out) {
  uint32_t seq = sock.ReserveSeq(1);
  bool malformed = false;
  RequestError err = RunDump(sock, GetAddrDumpRequest(seq), seq, [&](const nlmsghdr& h, const uint8_t* p, size_t n) {
    AddrInfo a;
    ParseResult r = ParseAddr(h, p, n, &a);
    if (r == ParseResult::kMalformed) malformed = true;
    if (r == ParseResult::kOk && (linkIndex <= 0 || a.linkIndex == linkIndex)) out->push_back(a);
  });
  if (err.errnum) return err;
  if (malformed) return Malformed("address");
  return err;
}

AddrApplyResult ApplyAddrOps(NetlinkSocket& sock, const std::vector<AddrOp>& ops) {
  AddrApplyResult res;
  for (size_t first = 0; first < ops.size(); first += kMaxAddrOpsPerSend) {
    size_t count = std::min(kMaxAddrOpsPerSend, ops.size() - first);
    RequestError err = SendChunk(sock, ops, first, count, &res.errors);
    if (err.errnum == 0) {
      res.sends++;
      continue;
    }
    if (res.sends == 0) {
      res.sendFailure = err;
      return res;
    }
    // A later chunk could not be sent: its ops and the rest were not applied.
    for (size_t i = first; i < ops.size(); i++) res.errors.push_back(AddrOpError{i, err.errnum, err.message});
    break;
  }
  std::stable_sort(res.errors.begin(), res.errors.end(), [](const AddrOpError& a, const AddrOpError& b) { return a.index < b.index; });
  return res;
}

}  // namespace rtnl
}  // namespace kpn
