#include "ipvs/encode.h"

#include <linux/genetlink.h>
#include <linux/ip_vs.h>
#include <linux/netlink.h>

#include <cstring>

namespace kpn {
namespace ipvs {

namespace {

void PutU16(NlBuilder& b, uint16_t type, uint16_t v) { b.PutBytes(type, &v, 2); }
void PutU32(NlBuilder& b, uint16_t type, uint32_t v) { b.PutBytes(type, &v, 4); }

void PutServiceKeyAttrs(NlBuilder& b, const ServiceKey& k) {
  PutU16(b, IPVS_SVC_ATTR_AF, k.addr.af);
  PutU16(b, IPVS_SVC_ATTR_PROTOCOL, k.protocol);
  b.PutBytes(IPVS_SVC_ATTR_ADDR, k.addr.bytes, k.addr.size());
  b.PutBe16(IPVS_SVC_ATTR_PORT, k.port);
}

void PutServiceNest(NlBuilder& b, const Service& s, bool full) {
  size_t nest = b.BeginNest(IPVS_CMD_ATTR_SERVICE);
  PutServiceKeyAttrs(b, s.key);
  if (full) {
    b.PutStr(IPVS_SVC_ATTR_SCHED_NAME, s.scheduler);
    // Every flag bit is ours to set: mask ~0, as ipvsadm sends it.
    ip_vs_flags flags{s.flags, ~0u};
    b.PutBytes(IPVS_SVC_ATTR_FLAGS, &flags, sizeof flags);
    PutU32(b, IPVS_SVC_ATTR_TIMEOUT, s.timeout);
    // The kernel reads the netmask with nla_get_be32: a v4 mask in network order; for v6 it
    // takes the same 32 bits as the prefix length (1..128) in host order.
    uint32_t netmask = s.key.addr.af == kAfInet ? V4MaskBe(s.prefixLength) : uint32_t(s.prefixLength);
    PutU32(b, IPVS_SVC_ATTR_NETMASK, netmask);
  }
  b.EndNest(nest);
}

void PutDestNest(NlBuilder& b, const Dest& d, bool full) {
  size_t nest = b.BeginNest(IPVS_CMD_ATTR_DEST);
  b.PutBytes(IPVS_DEST_ATTR_ADDR, d.key.addr.bytes, d.key.addr.size());
  b.PutBe16(IPVS_DEST_ATTR_PORT, d.key.port);
  // Kernels before 4.x ignore it (nla_parse_nested_deprecated skips unknown types) and take the service's.
  PutU16(b, IPVS_DEST_ATTR_ADDR_FAMILY, d.key.addr.af);
  if (full) {
    PutU32(b, IPVS_DEST_ATTR_FWD_METHOD, d.forward);
    PutU32(b, IPVS_DEST_ATTR_WEIGHT, d.weight);
    PutU32(b, IPVS_DEST_ATTR_U_THRESH, 0);
    PutU32(b, IPVS_DEST_ATTR_L_THRESH, 0);
  }
  b.EndNest(nest);
}

uint8_t CommandOf(OpCode c) {
  switch (c) {
    case OpCode::kAddService: return IPVS_CMD_NEW_SERVICE;
    case OpCode::kEditService: return IPVS_CMD_SET_SERVICE;
    case OpCode::kDeleteService: return IPVS_CMD_DEL_SERVICE;
    case OpCode::kAddDest: return IPVS_CMD_NEW_DEST;
    case OpCode::kEditDest: return IPVS_CMD_SET_DEST;
    case OpCode::kDeleteDest: return IPVS_CMD_DEL_DEST;
  }
  return IPVS_CMD_UNSPEC;
}

}  // namespace

uint32_t V4MaskBe(uint8_t prefixLength) {
  uint32_t host = prefixLength == 0 ? 0 : prefixLength >= 32 ? 0xffffffffu : ~((1u << (32 - prefixLength)) - 1);
  uint8_t be[4] = {uint8_t(host >> 24), uint8_t(host >> 16), uint8_t(host >> 8), uint8_t(host)};
  uint32_t v;
  std::memcpy(&v, be, 4);
  return v;
}

size_t BeginGenlMsg(NlBuilder& b, uint16_t familyId, uint8_t cmd, uint8_t version, uint16_t flags, uint32_t seq) {
  // genlmsghdr has nfgenmsg's layout (u8, u8, u16): cmd in the first byte, the version in the second.
  size_t off = b.BeginMsg(familyId, flags, seq, cmd, 0);
  b.mutable_data()[off + NLMSG_HDRLEN + 1] = version;
  return off;
}

void PutServiceKeyNest(NlBuilder& b, const ServiceKey& k) {
  size_t nest = b.BeginNest(IPVS_CMD_ATTR_SERVICE);
  PutServiceKeyAttrs(b, k);
  b.EndNest(nest);
}

void EncodeOp(NlBuilder& b, uint16_t familyId, const Op& op, uint16_t extraFlags, uint32_t seq) {
  size_t msg = BeginGenlMsg(b, familyId, CommandOf(op.code), IPVS_GENL_VERSION, NLM_F_REQUEST | extraFlags, seq);
  bool fullService = op.code == OpCode::kAddService || op.code == OpCode::kEditService;
  PutServiceNest(b, op.service, fullService);
  if (!IsServiceOp(op.code)) PutDestNest(b, op.dest, op.code != OpCode::kDeleteDest);
  b.EndMsg(msg);
}

}  // namespace ipvs
}  // namespace kpn
