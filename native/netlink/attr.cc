#include "netlink/attr.h"

namespace kpn {

bool ParseAttrs(const uint8_t* p, size_t n, AttrView* tb, uint16_t maxType) {
  for (uint16_t i = 0; i <= maxType; i++) tb[i] = AttrView{};
  return ForEachAttr(p, n, [&](uint16_t type, AttrView v) {
    if (type <= maxType) tb[type] = v;
  });
}

uint32_t AttrBe32(const AttrView& a, uint32_t dflt) {
  if (a.len < 4) return dflt;
  return (uint32_t(a.data[0]) << 24) | (uint32_t(a.data[1]) << 16) | (uint32_t(a.data[2]) << 8) | a.data[3];
}

uint64_t AttrBe64(const AttrView& a, uint64_t dflt) {
  if (a.len < 8) return dflt;
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | a.data[i];
  return v;
}

uint8_t AttrU8(const AttrView& a, uint8_t dflt) { return a.len < 1 ? dflt : a.data[0]; }

std::string AttrStr(const AttrView& a) {
  if (!a.present()) return std::string();
  const void* nul = std::memchr(a.data, 0, a.len);
  size_t n = nul ? size_t(static_cast<const uint8_t*>(nul) - a.data) : a.len;
  return std::string(reinterpret_cast<const char*>(a.data), n);
}

bool ParseAck(const nlmsghdr& h, const uint8_t* payload, size_t len, NlAck* out) {
  if (len < sizeof(nlmsgerr)) return false;
  nlmsgerr e;
  std::memcpy(&e, payload, sizeof e);
  // The kernel sends 0 or -errno: errno < 4096, or one of ipset's own codes, IPSET_ERR_PRIVATE
  // (4096) and up; anything else, INT_MIN included (whose negation overflows), is a corrupt reply.
  if (e.error > 0 || e.error < -kMaxAckErrno) return false;
  out->seq = h.nlmsg_seq;
  out->error = -e.error;
  out->extack.clear();
  if (!(h.nlmsg_flags & NLM_F_ACK_TLVS)) return true;
  // Without NLM_F_CAPPED the whole offending message is echoed before the TLVs.
  size_t tlvOff = sizeof(nlmsgerr);
  if (!(h.nlmsg_flags & NLM_F_CAPPED)) {
    // (checked against len first: NLMSG_ALIGN of a u32 near 4 GiB wraps to a small offset)
    if (e.msg.nlmsg_len < NLMSG_HDRLEN || e.msg.nlmsg_len > len) return true;
    tlvOff = sizeof(int) + NLMSG_ALIGN(e.msg.nlmsg_len);
  }
  if (tlvOff > len) return true;
  AttrView tb[NLMSGERR_ATTR_MAX + 1];
  if (!ParseAttrs(payload + tlvOff, len - tlvOff, tb, NLMSGERR_ATTR_MAX)) return true;
  out->extack = AttrStr(tb[NLMSGERR_ATTR_MSG]);
  if (tb[NLMSGERR_ATTR_OFFS].len >= 4) {
    uint32_t off;
    std::memcpy(&off, tb[NLMSGERR_ATTR_OFFS].data, 4);
    out->badAttrOffset = off;
  }
  return true;
}

std::vector<AttrStep> AttrPathAt(const uint8_t* msg, size_t msgLen, size_t headerLen, size_t offset) {
  std::vector<AttrStep> path;
  size_t start = headerLen;
  size_t end = msgLen;
  for (int depth = 0; depth < 8 && start < end && offset >= start; depth++) {
    bool found = false;
    size_t index = 0;
    ForEachAttr(msg + start, end - start, [&](uint16_t type, AttrView v) {
      size_t attrStart = size_t(v.data - msg) - NLA_HDRLEN;
      size_t attrEnd = size_t(v.data - msg) + v.len;
      if (found || offset < attrStart || offset >= attrEnd) { index++; return; }
      found = true;
      path.push_back(AttrStep{type, index});
      if (offset == attrStart) { end = start; return; }  // exactly this attribute
      start = size_t(v.data - msg);
      end = attrEnd;
    });
    if (!found) break;
  }
  return path;
}

}  // namespace kpn
