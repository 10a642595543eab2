// Links and addresses as plain structs: what the rtnetlink requests carry and the replies hold.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace kpn {
namespace rtnl {

struct LinkInfo {
  int32_t index = 0;
  std::string name;
  std::string kind;   // IFLA_INFO_KIND; empty when the kernel reports none (lo, most physical links)
  uint32_t flags = 0; // ifi_flags (IFF_UP, ...)
};

struct AddrInfo {
  int32_t linkIndex = 0;
  uint8_t family = 0;  // AF_INET or AF_INET6
  uint8_t prefixLength = 0;
  uint8_t scope = 0;
  uint32_t flags = 0;  // IFA_FLAGS when present, else ifa_flags
  uint8_t addr[16] = {};
};

enum class AddrOpKind : uint8_t { kAdd = 1, kDelete = 2 };

// One operation of applyAddresses, decoded from its 24-byte record (addr_ops.h).
struct AddrOp {
  AddrOpKind kind = AddrOpKind::kAdd;
  uint8_t family = 0;  // AF_INET or AF_INET6
  uint8_t prefixLength = 0;
  int32_t linkIndex = 0;
  uint8_t addr[16] = {};
};

struct AddrOpError {
  size_t index = 0;  // the op's position in the batch
  int errnum = 0;    // positive errno
  std::string extack;
};

inline size_t AddrLen(uint8_t family) { return family == 2 /* AF_INET */ ? 4 : 16; }

}  // namespace rtnl
}  // namespace kpn
