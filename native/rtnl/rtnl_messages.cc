#include "rtnl/rtnl_messages.h"

#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>

#include "netlink/attr.h"

namespace kpn {
namespace rtnl {

namespace {

// NlBuilder::BeginMsg writes nfnetlink's 4-byte header; rtnetlink messages carry ifinfomsg or
// ifaddrmsg instead, so the message header is written here and EndMsg still sets the length.
template <typename Hdr>
size_t BeginRtMsg(NlBuilder& b, uint16_t type, uint16_t flags, uint32_t seq, const Hdr& hdr) {
  std::vector<uint8_t>& buf = b.mutable_data();
  while (buf.size() % 4 != 0) buf.push_back(0);
  size_t off = buf.size();
  buf.resize(off + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(Hdr)), 0);
  nlmsghdr h{};
  h.nlmsg_type = type;
  h.nlmsg_flags = uint16_t(NLM_F_REQUEST | flags);
  h.nlmsg_seq = seq;
  std::memcpy(buf.data() + off, &h, sizeof h);
  std::memcpy(buf.data() + off + NLMSG_HDRLEN, &hdr, sizeof hdr);
  return off;
}

std::vector<uint8_t> LinkByName(uint16_t type, uint16_t flags, const std::string& name, uint32_t seq, const char* kind) {
  NlBuilder b;
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  size_t m = BeginRtMsg(b, type, uint16_t(flags | NLM_F_ACK), seq, ifi);
  b.PutStr(IFLA_IFNAME, name);
  if (kind) {
    size_t li = b.BeginNest(IFLA_LINKINFO);
    b.PutStr(IFLA_INFO_KIND, kind);
    b.EndNest(li);
  }
  if (type == RTM_GETLINK) {
    uint32_t mask = RTEXT_FILTER_SKIP_STATS;  // the reply without counters
    b.PutBytes(IFLA_EXT_MASK, &mask, sizeof mask);
  }
  b.EndMsg(m);
  return b.data();
}

}  // namespace

std::vector<uint8_t> GetLinkRequest(const std::string& name, uint32_t seq) {
  return LinkByName(RTM_GETLINK, 0, name, seq, nullptr);
}

std::vector<uint8_t> NewDummyLinkRequest(const std::string& name, uint32_t seq) {
  return LinkByName(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, name, seq, "dummy");
}

std::vector<uint8_t> DelLinkRequest(const std::string& name, uint32_t seq) {
  return LinkByName(RTM_DELLINK, 0, name, seq, nullptr);
}

std::vector<uint8_t> GetAddrDumpRequest(uint32_t seq) {
  NlBuilder b;
  ifaddrmsg ifa{};
  ifa.ifa_family = AF_UNSPEC;
  size_t m = BeginRtMsg(b, RTM_GETADDR, NLM_F_DUMP, seq, ifa);
  b.EndMsg(m);
  return b.data();
}

void AppendAddrOp(NlBuilder& b, const AddrOp& op, uint32_t seq) {
  bool add = op.kind == AddrOpKind::kAdd;
  bool v6 = op.family == AF_INET6;
  ifaddrmsg ifa{};
  ifa.ifa_family = op.family;
  ifa.ifa_prefixlen = op.prefixLength;
  ifa.ifa_scope = RT_SCOPE_UNIVERSE;
  ifa.ifa_index = uint32_t(op.linkIndex);
  if (add && v6) ifa.ifa_flags = IFA_F_NODAD;
  uint16_t flags = add ? uint16_t(NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK) : uint16_t(NLM_F_ACK);
  size_t m = BeginRtMsg(b, add ? RTM_NEWADDR : RTM_DELADDR, flags, seq, ifa);
  size_t len = AddrLen(op.family);
  b.PutBytes(IFA_LOCAL, op.addr, len);
  b.PutBytes(IFA_ADDRESS, op.addr, len);
  if (add && v6) {
    uint32_t f = IFA_F_NODAD;
    b.PutBytes(IFA_FLAGS, &f, sizeof f);
  }
  b.EndMsg(m);
}

ParseResult ParseLink(const nlmsghdr& h, const uint8_t* p, size_t n, LinkInfo* out) {
  if (h.nlmsg_type != RTM_NEWLINK) return ParseResult::kSkip;
  if (n < NLMSG_ALIGN(sizeof(ifinfomsg))) return ParseResult::kMalformed;
  ifinfomsg ifi;
  std::memcpy(&ifi, p, sizeof ifi);
  AttrView tb[IFLA_MAX + 1];
  size_t off = NLMSG_ALIGN(sizeof(ifinfomsg));
  if (!ParseAttrs(p + off, n - off, tb, IFLA_MAX)) return ParseResult::kMalformed;
  out->index = ifi.ifi_index;
  out->flags = ifi.ifi_flags;
  out->name = AttrStr(tb[IFLA_IFNAME]);
  out->kind.clear();
  if (tb[IFLA_LINKINFO].present()) {
    AttrView li[IFLA_INFO_MAX + 1];
    if (!ParseAttrs(tb[IFLA_LINKINFO].data, tb[IFLA_LINKINFO].len, li, IFLA_INFO_MAX)) return ParseResult::kMalformed;
    out->kind = AttrStr(li[IFLA_INFO_KIND]);
  }
  return ParseResult::kOk;
}

ParseResult ParseAddr(const nlmsghdr& h, const uint8_t* p, size_t n, AddrInfo* out) {
  if (h.nlmsg_type != RTM_NEWADDR) return ParseResult::kSkip;
  if (n < NLMSG_ALIGN(sizeof(ifaddrmsg))) return ParseResult::kMalformed;
  ifaddrmsg ifa;
  std::memcpy(&ifa, p, sizeof ifa);
  if (ifa.ifa_family != AF_INET && ifa.ifa_family != AF_INET6) return ParseResult::kSkip;
  AttrView tb[IFA_MAX + 1];
  size_t off = NLMSG_ALIGN(sizeof(ifaddrmsg));
  if (!ParseAttrs(p + off, n - off, tb, IFA_MAX)) return ParseResult::kMalformed;
  // IFA_LOCAL is the interface's own address (IFA_ADDRESS is the peer's on point-to-point links).
  const AttrView& a = tb[IFA_LOCAL].present() ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
  size_t want = AddrLen(ifa.ifa_family);
  if (a.len != want || ifa.ifa_prefixlen > want * 8) return ParseResult::kMalformed;
  if (tb[IFA_FLAGS].present() && tb[IFA_FLAGS].len != 4) return ParseResult::kMalformed;
  *out = AddrInfo{};
  out->linkIndex = int32_t(ifa.ifa_index);
  out->family = ifa.ifa_family;
  out->prefixLength = ifa.ifa_prefixlen;
  out->scope = ifa.ifa_scope;
  out->flags = ifa.ifa_flags;
  if (tb[IFA_FLAGS].present()) std::memcpy(&out->flags, tb[IFA_FLAGS].data, 4);
  std::memcpy(out->addr, a.data, want);
  return ParseResult::kOk;
}

}  // namespace rtnl
}  // namespace kpn
