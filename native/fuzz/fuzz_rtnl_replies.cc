// libFuzzer entry: one datagram from NETLINK_ROUTE (seeds/rtnl_replies/: captured link and address
// dumps, a link reply, a batch's acks). It goes through
// - ParseLink and ParseAddr on every message, as GetLink and DumpAddrs read them;
// - FeedAddrReplies for a batch whose base is the first message's seq (size from the last byte),
//   then FailPending, checking every op ends with exactly one ack or error;
// - ReplyCollector, which carries the link requests and the address dump;
// - DecodeAddrOps on the same bytes as an ops buffer; every op it accepts is encoded and an add
//   parsed back to the same address.
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "netlink/attr.h"
#include "netlink/builder.h"
#include "netlink/request.h"
#include "rtnl/addr_ops.h"
#include "rtnl/addr_replies.h"
#include "rtnl/rtnl_messages.h"

namespace {

using namespace kpn::rtnl;

uint32_t FirstSeq(const uint8_t* data, size_t size) {
  uint32_t seq = 0;
  if (size >= NLMSG_HDRLEN) std::memcpy(&seq, data + 8, sizeof seq);
  return seq;
}

void ParseEach(const uint8_t* data, size_t size) {
  kpn::ForEachMsg(data, size, [&](const nlmsghdr& h, const uint8_t* p, size_t n) {
    LinkInfo link;
    AddrInfo addr;
    volatile size_t sink = 0;
    if (ParseLink(h, p, n, &link) == ParseResult::kOk) sink += link.name.size() + link.kind.size();
    if (ParseAddr(h, p, n, &addr) == ParseResult::kOk) {
      if (addr.family != 2 && addr.family != 10) __builtin_trap();
      if (addr.prefixLength > AddrLen(addr.family) * 8) __builtin_trap();
    }
    (void)sink;
    return true;
  });
}

void BatchAcks(const uint8_t* data, size_t size) {
  size_t count = size > 0 ? 1 + data[size - 1] % 64 : 1;
  AddrBatchReplies st(FirstSeq(data, size), 100, count);
  FeedAddrReplies(data, size, &st);
  FeedAddrReplies(data, size, &st);  // repeated acks are ignored
  size_t errorsBefore = st.errors.size();
  if (errorsBefore > count) __builtin_trap();
  FailPending(&st, 105, "test");
  if (!st.done()) __builtin_trap();
  for (size_t i = 0; i < count; i++) {
    if (!st.acked[i]) __builtin_trap();
  }
  for (const AddrOpError& e : st.errors) {
    if (e.index < 100 || e.index >= 100 + count || e.errnum <= 0) __builtin_trap();
  }
}

void Collect(const uint8_t* data, size_t size) {
  size_t msgs = 0;
  kpn::ReplyCollector replies(FirstSeq(data, size), [&](const nlmsghdr&, const uint8_t*, size_t) { msgs++; });
  replies.Feed(data, size);
  volatile size_t sink = replies.result().message.size() + msgs;
  (void)sink;
}

void OpsRoundTrip(const uint8_t* data, size_t size) {
  std::vector<AddrOp> ops;
  std::string err;
  if (!DecodeAddrOps(data, size, &ops, &err)) {
    if (err.empty()) __builtin_trap();
    return;
  }
  for (size_t i = 0; i < ops.size(); i++) {
    kpn::NlBuilder b;
    AppendAddrOp(b, ops[i], uint32_t(i + 1));
    if (!b.ok()) __builtin_trap();
    if (ops[i].kind != AddrOpKind::kAdd) continue;
    nlmsghdr h;
    std::memcpy(&h, b.data().data(), sizeof h);
    h.nlmsg_type = RTM_NEWADDR;
    AddrInfo back;
    if (ParseAddr(h, b.data().data() + NLMSG_HDRLEN, b.size() - NLMSG_HDRLEN, &back) != ParseResult::kOk) __builtin_trap();
    if (back.linkIndex != ops[i].linkIndex || back.prefixLength != ops[i].prefixLength ||
        std::memcmp(back.addr, ops[i].addr, AddrLen(ops[i].family)) != 0) {
      __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ParseEach(data, size);
  BatchAcks(data, size);
  Collect(data, size);
  OpsRoundTrip(data, size);
  return 0;
}
