#include "conntrack/ct_messages.h"

#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "netlink/attr_iter.h"

namespace kpn::ct {

namespace {

// Kernel-internal flag bits of CTA_FILTER_ORIG_FLAGS / CTA_FILTER_REPLY_FLAGS
// (net/netfilter/nf_internals.h); stable ABI since Linux 5.8.
constexpr uint32_t kFilterIpSrc = 1u << 0;
constexpr uint32_t kFilterIpDst = 1u << 1;
constexpr uint32_t kFilterProtoNum = 1u << 3;
constexpr uint32_t kFilterSrcPort = 1u << 4;
constexpr uint32_t kFilterDstPort = 1u << 5;

constexpr uint16_t MsgType(uint8_t msg) {
  return static_cast<uint16_t>((NFNL_SUBSYS_CTNETLINK << 8) | msg);
}

size_t AddrLen(uint8_t family) { return family == AF_INET6 ? 16 : 4; }

void PutHostU32(NlBuilder& b, uint16_t type, uint32_t v) { b.PutBytes(type, &v, sizeof v); }

// One direction's tuple carrying only the fields the filter names, plus its flag word.
uint32_t PutFilterTuple(NlBuilder& b, uint16_t nestType, uint8_t family, uint8_t proto,
                        const uint8_t* addr, bool hasAddr, bool addrIsSrc, uint16_t port,
                        bool hasPort, bool portIsSrc) {
  uint32_t flags = kFilterProtoNum;
  size_t tuple = b.BeginNest(nestType);
  if (hasAddr) {
    size_t ip = b.BeginNest(CTA_TUPLE_IP);
    uint16_t t = family == AF_INET6 ? (addrIsSrc ? CTA_IP_V6_SRC : CTA_IP_V6_DST)
                                    : (addrIsSrc ? CTA_IP_V4_SRC : CTA_IP_V4_DST);
    b.PutBytes(t, addr, AddrLen(family));
    b.EndNest(ip);
    flags |= addrIsSrc ? kFilterIpSrc : kFilterIpDst;
  }
  size_t pr = b.BeginNest(CTA_TUPLE_PROTO);
  b.PutU8(CTA_PROTO_NUM, proto);
  if (hasPort) {
    b.PutBe16(portIsSrc ? CTA_PROTO_SRC_PORT : CTA_PROTO_DST_PORT, port);
    flags |= portIsSrc ? kFilterSrcPort : kFilterDstPort;
  }
  b.EndNest(pr);
  b.EndNest(tuple);
  return flags;
}

bool ParseIp(const Attr& nest, uint8_t family, Tuple* t) {
  AttrIter it(nest);
  Attr a;
  size_t want = AddrLen(family);
  while (it.Next(&a)) {
    bool v4 = a.type == CTA_IP_V4_SRC || a.type == CTA_IP_V4_DST;
    bool v6 = a.type == CTA_IP_V6_SRC || a.type == CTA_IP_V6_DST;
    if (!v4 && !v6) continue;
    if ((v6 != (family == AF_INET6)) || a.len != want) return false;
    bool src = a.type == CTA_IP_V4_SRC || a.type == CTA_IP_V6_SRC;
    std::memcpy(src ? t->src : t->dst, a.data, want);
    (src ? t->hasSrc : t->hasDst) = true;
  }
  return !it.malformed();
}

bool ParseProto(const Attr& nest, Tuple* t) {
  AttrIter it(nest);
  Attr a;
  while (it.Next(&a)) {
    if (a.type == CTA_PROTO_NUM) {
      if (!ReadU8(a, &t->proto)) return false;
      t->hasProto = true;
    } else if (a.type == CTA_PROTO_SRC_PORT) {
      if (!ReadBe16(a, &t->srcPort)) return false;
      t->hasSrcPort = true;
    } else if (a.type == CTA_PROTO_DST_PORT) {
      if (!ReadBe16(a, &t->dstPort)) return false;
      t->hasDstPort = true;
    }
  }
  return !it.malformed();
}

bool ParseTuple(const Attr& nest, uint8_t family, Tuple* t) {
  AttrIter it(nest);
  Attr a;
  while (it.Next(&a)) {
    if (a.type == CTA_TUPLE_IP && !ParseIp(a, family, t)) return false;
    if (a.type == CTA_TUPLE_PROTO && !ParseProto(a, t)) return false;
  }
  return !it.malformed();
}

}  // namespace

void AppendDumpRequest(NlBuilder& b, const Filter& f, uint32_t seq) {
  size_t msg = b.BeginMsg(MsgType(IPCTNL_MSG_CT_GET), NLM_F_REQUEST | NLM_F_DUMP, seq, f.family, 0);
  // The kernel's IPv6 address comparison in ctnetlink_filter_match_tuple() is inverted (it uses
  // !ipv6_addr_cmp(), true when the addresses are EQUAL, to reject), up to at least 6.18: asking
  // it to filter on an IPv6 address returns every entry EXCEPT the wanted ones. So IPv6 addresses
  // are matched in user space only; family, protocol and ports are still filtered in the kernel.
  bool kernelAddr = f.family == AF_INET;
  uint32_t origFlags = PutFilterTuple(b, CTA_TUPLE_ORIG, f.family, f.proto, f.origDst,
                                      f.hasOrigDst && kernelAddr, false, f.origDstPort,
                                      f.hasOrigDstPort, false);
  uint32_t replyFlags = 0;
  if ((f.hasReplySrc && kernelAddr) || f.hasReplySrcPort) {
    replyFlags = PutFilterTuple(b, CTA_TUPLE_REPLY, f.family, f.proto, f.replySrc,
                                f.hasReplySrc && kernelAddr, true, f.replySrcPort,
                                f.hasReplySrcPort, true);
  }
  size_t filter = b.BeginNest(CTA_FILTER);
  PutHostU32(b, CTA_FILTER_ORIG_FLAGS, origFlags);
  if (replyFlags) PutHostU32(b, CTA_FILTER_REPLY_FLAGS, replyFlags);
  b.EndNest(filter);
  // Translated or not: status & mask == value (checked again in user space by Matches).
  if (f.dnat >= 0) {
    b.PutBe32(CTA_STATUS, f.dnat == 1 ? IPS_DST_NAT : 0);
    b.PutBe32(CTA_STATUS_MASK, IPS_DST_NAT);
  }
  b.EndMsg(msg);
}

void AppendListRequest(NlBuilder& b, uint8_t family, uint8_t proto, uint32_t seq) {
  size_t msg = b.BeginMsg(MsgType(IPCTNL_MSG_CT_GET), NLM_F_REQUEST | NLM_F_DUMP, seq, family, 0);
  uint32_t origFlags = PutFilterTuple(b, CTA_TUPLE_ORIG, family, proto, nullptr, false, false, 0, false, false);
  size_t filter = b.BeginNest(CTA_FILTER);
  PutHostU32(b, CTA_FILTER_ORIG_FLAGS, origFlags);
  b.EndNest(filter);
  // (status & mask) == status: only DNATed entries (Linux 6.0+; older kernels ignore it and the
  // status is checked again on each entry).
  b.PutBe32(CTA_STATUS, IPS_DST_NAT);
  b.PutBe32(CTA_STATUS_MASK, IPS_DST_NAT);
  b.EndMsg(msg);
}

void AppendDelete(NlBuilder& b, const Entry& e, uint32_t seq) {
  size_t msg = b.BeginMsg(MsgType(IPCTNL_MSG_CT_DELETE), NLM_F_REQUEST | NLM_F_ACK, seq, e.family, 0);
  size_t tuple = b.BeginNest(CTA_TUPLE_ORIG);
  // The kernel's own encoding of the tuple, appended as-is inside our nest.
  b.mutable_data().insert(b.mutable_data().end(), e.origAttr.begin(), e.origAttr.end());
  b.EndNest(tuple);
  if (e.hasZone) b.PutBe16(CTA_ZONE, e.zone);
  if (e.hasId) b.PutBe32(CTA_ID, e.id);
  b.EndMsg(msg);
}

bool ParseEntry(const uint8_t* body, size_t len, Entry* out) {
  constexpr size_t kGenLen = NLMSG_ALIGN(sizeof(nfgenmsg));
  if (len < kGenLen) return false;
  nfgenmsg g;
  std::memcpy(&g, body, sizeof g);
  if (g.nfgen_family != AF_INET && g.nfgen_family != AF_INET6) return false;
  out->family = g.nfgen_family;
  AttrIter it(body + kGenLen, len - kGenLen);
  Attr a;
  bool haveOrig = false;
  while (it.Next(&a)) {
    switch (a.type) {
      case CTA_TUPLE_ORIG:
        if (!ParseTuple(a, out->family, &out->orig)) return false;
        out->origAttr.assign(a.data, a.data + a.len);
        haveOrig = true;
        break;
      case CTA_TUPLE_REPLY:
        if (!ParseTuple(a, out->family, &out->reply)) return false;
        break;
      case CTA_ZONE:
        if (!ReadBe16(a, &out->zone)) return false;
        out->hasZone = true;
        break;
      case CTA_ID:
        if (!ReadBe32(a, &out->id)) return false;
        out->hasId = true;
        break;
      case CTA_STATUS:
        if (!ReadBe32(a, &out->status)) return false;
        out->hasStatus = true;
        break;
      default:
        break;
    }
  }
  return !it.malformed() && haveOrig && out->orig.hasProto;
}

FlowKind ParseDnatFlow(const uint8_t* body, size_t len, uint8_t family, uint8_t proto, DnatFlow* out) {
  Entry e;
  if (!ParseEntry(body, len, &e)) return FlowKind::kMalformed;
  if (e.family != family || e.orig.proto != proto) return FlowKind::kOther;
  if (!e.hasStatus || !(e.status & IPS_DST_NAT)) return FlowKind::kOther;
  // A DNATed UDP/SCTP entry always carries both full tuples; one without them is corrupt.
  const Tuple& o = e.orig;
  const Tuple& r = e.reply;
  if (!o.hasSrc || !o.hasDst || !o.hasSrcPort || !o.hasDstPort || !r.hasSrc || !r.hasSrcPort) {
    return FlowKind::kMalformed;
  }
  size_t n = AddrLen(family);
  std::memcpy(out->origSrc, o.src, n);
  std::memcpy(out->origDst, o.dst, n);
  std::memcpy(out->replySrc, r.src, n);
  out->origSrcPort = o.srcPort;
  out->origDstPort = o.dstPort;
  out->replySrcPort = r.srcPort;
  return FlowKind::kDnat;
}

int64_t ParseStatsEntries(const uint8_t* body, size_t len) {
  constexpr size_t kGenLen = NLMSG_ALIGN(sizeof(nfgenmsg));
  if (len < kGenLen) return -1;
  AttrIter it(body + kGenLen, len - kGenLen);
  Attr a;
  int64_t entries = -1;
  uint32_t v;
  while (it.Next(&a)) {
    if (a.type == CTA_STATS_GLOBAL_ENTRIES && ReadBe32(a, &v)) entries = v;
  }
  return it.malformed() ? -1 : entries;
}

int ReplyErrorCode(const uint8_t* body, size_t len) {
  int32_t err = 0;
  if (len >= sizeof err) std::memcpy(&err, body, sizeof err);
  // The kernel sends 0 or -errno; anything else (INT_MIN, whose negation overflows, included)
  // is a corrupt reply.
  if (err > 0 || err < -4095) return -EPROTO;
  return err;
}

bool Matches(const Filter& f, const Entry& e) {
  size_t n = AddrLen(f.family);
  if (e.family != f.family || !e.orig.hasProto || e.orig.proto != f.proto) return false;
  if (f.hasOrigDst && (!e.orig.hasDst || std::memcmp(e.orig.dst, f.origDst, n) != 0)) return false;
  if (f.hasOrigDstPort && (!e.orig.hasDstPort || e.orig.dstPort != f.origDstPort)) return false;
  if (f.hasReplySrc && (!e.reply.hasSrc || std::memcmp(e.reply.src, f.replySrc, n) != 0)) return false;
  if (f.hasReplySrcPort && (!e.reply.hasSrcPort || e.reply.srcPort != f.replySrcPort)) return false;
  if (f.dnat >= 0 && (!e.hasStatus || ((e.status & IPS_DST_NAT) != 0) != (f.dnat == 1))) return false;
  return true;
}

}  // namespace kpn::ct
