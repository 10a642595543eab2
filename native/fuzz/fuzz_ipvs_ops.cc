// libFuzzer entry: an IPVS op buffer (docs/wire-format.md, "The IPVS op buffer") as apply() gets
// it. Decoded by DecodeOps (and DecodeServiceKey); every op that decodes is encoded into its
// generic netlink message, which must be well formed and parse back (replies.h) to the same
// service and destination the op holds.
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ipvs/encode.h"
#include "ipvs/op_decoder.h"
#include "ipvs/replies.h"
#include "netlink/attr.h"

using kpn::DecodeError;
using kpn::ForEachMsg;
using kpn::NlBuilder;
using namespace kpn::ipvs;

static bool SameAddr(const Addr& a, const Addr& b) { return a.af == b.af && std::memcmp(a.bytes, b.bytes, a.size()) == 0; }

static void CheckRoundTrip(const Op& op) {
  NlBuilder b;
  EncodeOp(b, 0x20, op, NLM_F_ACK, 1);
  if (!b.ok()) abort();
  bool seen = false;
  ForEachMsg(b.data().data(), b.size(), [&](const nlmsghdr&, const uint8_t* p, size_t n) {
    seen = true;
    ServiceEntry s;
    if (op.code == OpCode::kAddService || op.code == OpCode::kEditService) {
      if (!ParseServiceMsg(p, n, &s)) abort();
      const Service& w = op.service;
      if (!SameAddr(s.service.key.addr, w.key.addr) || s.service.key.port != w.key.port ||
          s.service.key.protocol != w.key.protocol || s.service.scheduler != w.scheduler || s.service.flags != w.flags ||
          s.service.timeout != w.timeout || s.service.prefixLength != w.prefixLength) {
        abort();
      }
    }
    if (op.code == OpCode::kAddDest || op.code == OpCode::kEditDest) {
      DestEntry d;
      if (!ParseDestMsg(p, n, op.service.key.addr.af, &d)) abort();
      if (!SameAddr(d.dest.key.addr, op.dest.key.addr) || d.dest.key.port != op.dest.key.port ||
          d.dest.weight != op.dest.weight || d.dest.forward != op.dest.forward) {
        abort();
      }
    }
    return true;
  });
  if (!seen) abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<Op> ops;
  DecodeError err;
  if (DecodeOps(data, size, &ops, &err)) {
    for (const Op& op : ops) CheckRoundTrip(op);
  } else if (DescribeDecodeError(err).empty()) {
    abort();
  }
  ServiceKey key;
  if (DecodeServiceKey(data, size, &key, &err)) {
    NlBuilder b;
    PutServiceKeyNest(b, key);
    if (!b.ok()) abort();
  }
  return 0;
}
