#include "rtnl/addr_ops.h"

#include <sys/socket.h>

#include <cstring>

namespace kpn {
namespace rtnl {

namespace {

bool Fail(size_t i, const std::string& what, std::string* err) {
  *err = "address op " + std::to_string(i) + ": " + what;
  return false;
}

bool DecodeOne(const uint8_t* r, size_t i, AddrOp* op, std::string* err) {
  if (r[0] != uint8_t(AddrOpKind::kAdd) && r[0] != uint8_t(AddrOpKind::kDelete)) {
    return Fail(i, "op must be 1 (add) or 2 (delete), got " + std::to_string(r[0]), err);
  }
  if (r[1] != 4 && r[1] != 6) return Fail(i, "family must be 4 or 6, got " + std::to_string(r[1]), err);
  size_t bits = r[1] == 4 ? 32 : 128;
  if (r[2] > bits) return Fail(i, "prefix length " + std::to_string(r[2]) + " exceeds " + std::to_string(bits), err);
  if (r[3] != 0) return Fail(i, "reserved byte 3 must be 0", err);
  uint32_t index = uint32_t(r[4]) | uint32_t(r[5]) << 8 | uint32_t(r[6]) << 16 | uint32_t(r[7]) << 24;
  if (index == 0 || index > 0x7fffffffu) return Fail(i, "link index must be 1..2147483647, got " + std::to_string(index), err);
  if (r[1] == 4) {
    for (size_t k = 12; k < 24; k++) {
      if (r[k] != 0) return Fail(i, "an IPv4 record's bytes 12..23 must be zero", err);
    }
  }
  op->kind = AddrOpKind(r[0]);
  op->family = r[1] == 4 ? AF_INET : AF_INET6;
  op->prefixLength = r[2];
  op->linkIndex = int32_t(index);
  std::memcpy(op->addr, r + 8, 16);
  return true;
}

}  // namespace

bool DecodeAddrOps(const uint8_t* data, size_t len, std::vector<AddrOp>* out, std::string* err) {
  out->clear();
  if (len % kAddrOpRecordSize != 0) {
    *err = "address ops buffer length " + std::to_string(len) + " is not a multiple of " + std::to_string(kAddrOpRecordSize);
    return false;
  }
  size_t n = len / kAddrOpRecordSize;
  if (n > kMaxAddrOps) {
    *err = "too many address ops: " + std::to_string(n) + " (at most " + std::to_string(kMaxAddrOps) + ")";
    return false;
  }
  out->resize(n);
  for (size_t i = 0; i < n; i++) {
    if (!DecodeOne(data + i * kAddrOpRecordSize, i, &(*out)[i], err)) {
      out->clear();
      return false;
    }
  }
  return true;
}

}  // namespace rtnl
}  // namespace kpn
