// Generic netlink IPVS messages: one message per op (NEW/SET/DEL_SERVICE, NEW/SET/DEL_DEST) and
// the requests dumps and the configuration use. Attributes are written as the kernel's
// ip_vs_genl_parse_service/_dest read them (net/netfilter/ipvs/ip_vs_ctl.c): AF, protocol, u32s
// and the flags struct in host order, ports big-endian, addresses as their 4 or 16 bytes.
#pragma once
#include <cstdint>

#include "ipvs/types.h"
#include "netlink/builder.h"

namespace kpn {
namespace ipvs {

// A genetlink message header (nlmsghdr + genlmsghdr{cmd, IPVS_GENL_VERSION}); returns its offset for EndMsg.
size_t BeginGenlMsg(NlBuilder& b, uint16_t familyId, uint8_t cmd, uint8_t version, uint16_t flags, uint32_t seq);

// The op's whole message (NLM_F_REQUEST | extraFlags).
void EncodeOp(NlBuilder& b, uint16_t familyId, const Op& op, uint16_t extraFlags, uint32_t seq);

// IPVS_CMD_ATTR_SERVICE with only the key (dest dumps, GET_SERVICE).
void PutServiceKeyNest(NlBuilder& b, const ServiceKey& k);

// The v4 persistence netmask for a prefix length, in network byte order as the kernel holds it.
uint32_t V4MaskBe(uint8_t prefixLength);

}  // namespace ipvs
}  // namespace kpn
