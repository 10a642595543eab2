// IPVS services, destinations and operations as plain structs: what the op buffer decodes to
// (ops.h) and what dumps parse to (replies.h). Addresses are kept as 16 bytes in network order
// (the first 4 for AF_INET), as the kernel's union nf_inet_addr holds them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kpn {
namespace ipvs {

// Address families on the wire (AF_INET, AF_INET6) and protocols (IPPROTO_*).
constexpr uint16_t kAfInet = 2, kAfInet6 = 10;
constexpr uint16_t kProtoTcp = 6, kProtoUdp = 17, kProtoSctp = 132;

struct Addr {
  uint16_t af = 0;  // kAfInet or kAfInet6
  uint8_t bytes[16] = {};
  size_t size() const { return af == kAfInet ? 4 : 16; }
};

struct ServiceKey {
  Addr addr;
  uint16_t protocol = 0;
  uint16_t port = 0;  // host order
};

struct Service {
  ServiceKey key;
  std::string scheduler;  // 1..15 bytes (IP_VS_SCHEDNAME_MAXLEN - 1)
  uint32_t flags = 0;
  uint32_t timeout = 0;
  uint8_t prefixLength = 0;  // v4: 0..32 (sent as a mask), v6: 1..128 (sent as is)
};

struct DestKey {
  Addr addr;
  uint16_t port = 0;
};

struct Dest {
  DestKey key;
  uint32_t weight = 0;   // 0..INT32_MAX (the kernel's weight is an int)
  uint32_t forward = 0;  // IP_VS_CONN_F_MASQ .. IP_VS_CONN_F_BYPASS
};

enum class OpCode : uint8_t {
  kAddService = 1, kEditService, kDeleteService, kAddDest, kEditDest, kDeleteDest,
};

struct Op {
  OpCode code = OpCode::kAddService;
  Service service;  // only key for kDeleteService and the dest ops
  Dest dest;        // only key for kDeleteDest
};

inline bool IsServiceOp(OpCode c) {
  return c == OpCode::kAddService || c == OpCode::kEditService || c == OpCode::kDeleteService;
}

// What a dump reports.
struct ServiceEntry {
  Service service;
  uint32_t fwmark = 0;  // nonzero: a firewall-mark service (no address, port, protocol)
};

struct DestEntry {
  Dest dest;
  uint32_t activeConns = 0, inactiveConns = 0, persistConns = 0;
};

struct Timeouts {
  uint32_t tcp = 0, tcpFin = 0, udp = 0;
};

}  // namespace ipvs
}  // namespace kpn
