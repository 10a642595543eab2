// Bounds-checked parsing of netlink messages and attributes received from the kernel. Nothing
// read from a socket is trusted: every length is checked before use.
#pragma once
#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kpn {

struct AttrView {
  const uint8_t* data = nullptr;
  size_t len = 0;
  bool present() const { return data != nullptr; }
};

// Fills tb[0..maxType] with the attributes found in [p, p+n) (later duplicates win, unknown types
// ignored). Returns false if any attribute header or length is malformed.
bool ParseAttrs(const uint8_t* p, size_t n, AttrView* tb, uint16_t maxType);

// Calls fn(type, view) for each attribute in [p, p+n), the type with its flags (NLA_F_NESTED,
// NLA_F_NET_BYTEORDER) as sent; returns false on malformed data.
template <typename F>
bool ForEachRawAttr(const uint8_t* p, size_t n, F fn) {
  size_t off = 0;
  while (n - off >= NLA_HDRLEN) {
    uint16_t len, type;
    std::memcpy(&len, p + off, 2);
    std::memcpy(&type, p + off + 2, 2);
    if (len < NLA_HDRLEN || len > n - off) return false;
    fn(type, AttrView{p + off + NLA_HDRLEN, size_t(len - NLA_HDRLEN)});
    size_t step = NLA_ALIGN(len);
    if (step > n - off) break;
    off += step;
  }
  return true;
}

// Calls fn(type, view) for each attribute in [p, p+n), the type without its flags; returns false
// on malformed data.
template <typename F>
bool ForEachAttr(const uint8_t* p, size_t n, F fn) {
  return ForEachRawAttr(p, n, [&](uint16_t type, AttrView v) { fn(uint16_t(type & NLA_TYPE_MASK), v); });
}

// Calls fn(const nlmsghdr*, payload, payloadLen) for each message in a datagram.
template <typename F>
bool ForEachMsg(const uint8_t* p, size_t n, F fn) {
  size_t off = 0;
  while (n - off >= NLMSG_HDRLEN) {
    nlmsghdr h;
    std::memcpy(&h, p + off, sizeof h);
    if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > n - off) return false;
    if (!fn(h, p + off + NLMSG_HDRLEN, size_t(h.nlmsg_len - NLMSG_HDRLEN))) return true;
    size_t step = NLMSG_ALIGN(h.nlmsg_len);
    if (step > n - off) break;
    off += step;
  }
  return true;
}

uint32_t AttrBe32(const AttrView& a, uint32_t dflt = 0);
uint64_t AttrBe64(const AttrView& a, uint64_t dflt = 0);
uint8_t AttrU8(const AttrView& a, uint8_t dflt = 0);
std::string AttrStr(const AttrView& a);  // up to the first NUL

// An NLMSG_ERROR reply: error is a positive errno (0 = ack), extack the kernel's text if any.
struct NlAck {
  uint32_t seq = 0;
  int error = 0;
  std::string extack;
  int64_t badAttrOffset = -1;  // NLMSGERR_ATTR_OFFS: byte offset in the request message, if given
};

// One step of the way down to an attribute: its type and its position among its siblings.
struct AttrStep { uint16_t type; size_t index; };

// The chain of attributes leading to the one at byte `offset` of the netlink message `msg`
// (attributes start after `headerLen` bytes of fixed header). Empty if the offset falls on none.
std::vector<AttrStep> AttrPathAt(const uint8_t* msg, size_t msgLen, size_t headerLen, size_t offset);
// The largest errno an ack may carry: ipset's private codes (IPSET_ERR_PRIVATE 4096, the
// type-specific ones from 4352) sit above the kernel's errno range.
constexpr int kMaxAckErrno = 4607;
// False when the payload is too short for an nlmsgerr or its error is not 0 or -errno.
bool ParseAck(const nlmsghdr& h, const uint8_t* payload, size_t len, NlAck* out);

}  // namespace kpn
