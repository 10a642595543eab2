#include "ipvs/replies.h"

#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/ip_vs.h>

#include <cstring>

#include "ipvs/encode.h"
#include "netlink/attr_iter.h"

namespace kpn {
namespace ipvs {

namespace {

constexpr size_t kGenlHdr = GENL_HDRLEN;

// Host-order fixed sizes (IPVS puts AF, protocol and u32s with nla_put_u16/_u32).
bool ReadU16(const Attr& a, uint16_t* v) { return a.len == 2 && (std::memcpy(v, a.data, 2), true); }
bool ReadU32(const Attr& a, uint32_t* v) { return a.len == 4 && (std::memcpy(v, a.data, 4), true); }

// The address attribute: the kernel sends the whole 16-byte union; accept 4 for v4 too.
bool ReadAddrBytes(const Attr& a, Addr* out) {
  if (a.len != 16 && a.len != 4) return false;
  std::memset(out->bytes, 0, sizeof out->bytes);
  std::memcpy(out->bytes, a.data, a.len);
  return true;
}

// The one attribute of type `type` at the message's top level (after genlmsghdr).
bool TopNest(const uint8_t* p, size_t n, uint16_t type, Attr* out) {
  if (n < kGenlHdr) return false;
  AttrIter it(p + kGenlHdr, n - kGenlHdr);
  Attr a;
  bool found = false;
  while (it.Next(&a)) {
    if (a.type == type) { *out = a; found = true; }
  }
  return !it.malformed() && found;
}

bool FinishService(ServiceEntry* out, bool haveAf, bool haveAddr, bool haveNetmask, uint32_t netmask) {
  Service& s = out->service;
  if (!haveAf || (s.key.addr.af != kAfInet && s.key.addr.af != kAfInet6)) return false;
  if (out->fwmark != 0) return true;
  if (!haveAddr || s.scheduler.empty()) return false;
  if (!haveNetmask) return true;
  if (s.key.addr.af == kAfInet) return V4PrefixOf(netmask, &s.prefixLength);
  if (netmask > 128) return false;
  s.prefixLength = uint8_t(netmask);
  return true;
}

}  // namespace

bool ParseFamilyId(const uint8_t* p, size_t n, uint16_t* id) {
  if (n < kGenlHdr) return false;
  AttrIter it(p + kGenlHdr, n - kGenlHdr);
  Attr a;
  bool found = false;
  while (it.Next(&a)) {
    if (a.type == CTRL_ATTR_FAMILY_ID) {
      if (!ReadU16(a, id)) return false;
      found = true;
    }
  }
  return !it.malformed() && found;
}

bool ParseServiceMsg(const uint8_t* p, size_t n, ServiceEntry* out) {
  Attr nest, a;
  if (!TopNest(p, n, IPVS_CMD_ATTR_SERVICE, &nest)) return false;
  *out = ServiceEntry{};
  Service& s = out->service;
  bool haveAf = false, haveAddr = false, haveNetmask = false, ok = true;
  uint32_t netmask = 0;
  AttrIter it(nest);
  while (ok && it.Next(&a)) {
    switch (a.type) {
      case IPVS_SVC_ATTR_AF: ok = haveAf = ReadU16(a, &s.key.addr.af); break;
      case IPVS_SVC_ATTR_PROTOCOL: ok = ReadU16(a, &s.key.protocol); break;
      case IPVS_SVC_ATTR_ADDR: ok = haveAddr = ReadAddrBytes(a, &s.key.addr); break;
      case IPVS_SVC_ATTR_PORT: ok = ReadBe16(a, &s.key.port); break;
      case IPVS_SVC_ATTR_FWMARK: ok = ReadU32(a, &out->fwmark); break;
      case IPVS_SVC_ATTR_SCHED_NAME: {
        const void* nul = std::memchr(a.data, 0, a.len);
        size_t len = nul ? size_t(static_cast<const uint8_t*>(nul) - a.data) : a.len;
        ok = len >= 1 && len < IP_VS_SCHEDNAME_MAXLEN;
        if (ok) s.scheduler.assign(reinterpret_cast<const char*>(a.data), len);
        break;
      }
      case IPVS_SVC_ATTR_FLAGS:
        ok = a.len == sizeof(ip_vs_flags);
        if (ok) std::memcpy(&s.flags, a.data, 4);  // ip_vs_flags.flags
        break;
      case IPVS_SVC_ATTR_TIMEOUT: ok = ReadU32(a, &s.timeout); break;
      case IPVS_SVC_ATTR_NETMASK: ok = haveNetmask = ReadU32(a, &netmask); break;
      default: break;  // stats, PE name
    }
  }
  return ok && !it.malformed() && FinishService(out, haveAf, haveAddr, haveNetmask, netmask);
}

bool ParseDestMsg(const uint8_t* p, size_t n, uint16_t serviceAf, DestEntry* out) {
  Attr nest, a;
  if (!TopNest(p, n, IPVS_CMD_ATTR_DEST, &nest)) return false;
  *out = DestEntry{};
  Dest& d = out->dest;
  d.key.addr.af = serviceAf;
  bool haveAddr = false, havePort = false, ok = true;
  AttrIter it(nest);
  while (ok && it.Next(&a)) {
    switch (a.type) {
      case IPVS_DEST_ATTR_ADDR: ok = haveAddr = ReadAddrBytes(a, &d.key.addr); break;
      case IPVS_DEST_ATTR_PORT: ok = havePort = ReadBe16(a, &d.key.port); break;
      case IPVS_DEST_ATTR_FWD_METHOD: ok = ReadU32(a, &d.forward) && d.forward <= IP_VS_CONN_F_FWD_MASK; break;
      case IPVS_DEST_ATTR_WEIGHT: ok = ReadU32(a, &d.weight) && d.weight <= 0x7fffffffu; break;
      case IPVS_DEST_ATTR_ACTIVE_CONNS: ok = ReadU32(a, &out->activeConns); break;
      case IPVS_DEST_ATTR_INACT_CONNS: ok = ReadU32(a, &out->inactiveConns); break;
      case IPVS_DEST_ATTR_PERSIST_CONNS: ok = ReadU32(a, &out->persistConns); break;
      case IPVS_DEST_ATTR_ADDR_FAMILY: ok = ReadU16(a, &d.key.addr.af); break;
      default: break;  // thresholds, stats, tunnel settings
    }
  }
  bool knownAf = d.key.addr.af == kAfInet || d.key.addr.af == kAfInet6;
  return ok && !it.malformed() && haveAddr && havePort && knownAf;
}

bool ParseConfigMsg(const uint8_t* p, size_t n, Timeouts* out) {
  if (n < kGenlHdr) return false;
  *out = Timeouts{};
  AttrIter it(p + kGenlHdr, n - kGenlHdr);
  Attr a;
  bool ok = true;
  while (ok && it.Next(&a)) {
    if (a.type == IPVS_CMD_ATTR_TIMEOUT_TCP) ok = ReadU32(a, &out->tcp);
    else if (a.type == IPVS_CMD_ATTR_TIMEOUT_TCP_FIN) ok = ReadU32(a, &out->tcpFin);
    else if (a.type == IPVS_CMD_ATTR_TIMEOUT_UDP) ok = ReadU32(a, &out->udp);
  }
  return ok && !it.malformed();
}

bool V4PrefixOf(uint32_t maskBe, uint8_t* prefix) {
  uint8_t b[4];
  std::memcpy(b, &maskBe, 4);
  uint32_t host = (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
  uint8_t len = 0;
  while (len < 32 && (host & (0x80000000u >> len))) len++;
  if (V4MaskBe(len) != maskBe) return false;
  *prefix = len;
  return true;
}

std::string AddrText(const Addr& a) {
  char buf[INET6_ADDRSTRLEN];
  int af = a.af == kAfInet ? AF_INET : AF_INET6;
  if (!inet_ntop(af, a.bytes, buf, sizeof buf)) return std::string();
  return buf;
}

}  // namespace ipvs
}  // namespace kpn
