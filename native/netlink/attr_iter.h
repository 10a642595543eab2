// Bounds-checked walk over netlink attributes (struct nlattr, 4-byte aligned) in a byte range.
// Replies come from the kernel, but a short or corrupt attribute must end the walk, never read
// past the range.
#pragma once
#include <cstddef>
#include <cstdint>

namespace kpn {

struct Attr {
  uint16_t type = 0;  // NLA_F_NESTED / NLA_F_NET_BYTEORDER masked off
  const uint8_t* data = nullptr;
  size_t len = 0;
};

class AttrIter {
 public:
  AttrIter(const uint8_t* data, size_t len) : p_(data), end_(data + len) {}
  explicit AttrIter(const Attr& nest) : AttrIter(nest.data, nest.len) {}
  // False at the end or on a malformed attribute (then malformed() is true).
  bool Next(Attr* out);
  bool malformed() const { return malformed_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  bool malformed_ = false;
};

// Fixed-size payloads: false unless the attribute is exactly that long (the kernel puts them with
// nla_put_u8/_be16/_be32, so any other length is a corrupt reply).
bool ReadBe16(const Attr& a, uint16_t* v);
bool ReadBe32(const Attr& a, uint32_t* v);
bool ReadU8(const Attr& a, uint8_t* v);

}  // namespace kpn
