#include "netlink/attr_iter.h"

#include <cstring>

namespace kpn {

namespace {
constexpr uint16_t kTypeMask = 0x3fff;  // ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER)
constexpr size_t kHdr = 4;
size_t Align4(size_t n) { return (n + 3) & ~size_t(3); }
}  // namespace

bool AttrIter::Next(Attr* out) {
  if (malformed_ || p_ >= end_) return false;
  size_t left = static_cast<size_t>(end_ - p_);
  if (left < kHdr) { malformed_ = true; return false; }
  uint16_t len, type;
  std::memcpy(&len, p_, 2);
  std::memcpy(&type, p_ + 2, 2);
  if (len < kHdr || len > left) { malformed_ = true; return false; }
  out->type = type & kTypeMask;
  out->data = p_ + kHdr;
  out->len = len - kHdr;
  size_t step = Align4(len);
  p_ = step >= left ? end_ : p_ + step;
  return true;
}

bool ReadU8(const Attr& a, uint8_t* v) {
  if (a.len != 1) return false;
  *v = a.data[0];
  return true;
}

bool ReadBe16(const Attr& a, uint16_t* v) {
  if (a.len != 2) return false;
  *v = static_cast<uint16_t>((a.data[0] << 8) | a.data[1]);
  return true;
}

bool ReadBe32(const Attr& a, uint32_t* v) {
  if (a.len != 4) return false;
  *v = (uint32_t(a.data[0]) << 24) | (uint32_t(a.data[1]) << 16) | (uint32_t(a.data[2]) << 8) |
       uint32_t(a.data[3]);
  return true;
}

}  // namespace kpn
