// Parsing of what the kernel sends back to IPVS requests: the generic netlink controller's family
// answer, dumped services and destinations, the configuration (timeouts). Pure and bounds-checked
// (fuzzed by fuzz_ipvs_replies.cc): every parser gets one message's payload (after the nlmsghdr,
// genlmsghdr included) and returns false when it is malformed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "ipvs/types.h"

namespace kpn {
namespace ipvs {

// CTRL_CMD_NEWFAMILY: the family's id.
bool ParseFamilyId(const uint8_t* p, size_t n, uint16_t* id);

// IPVS_CMD_NEW_SERVICE (a dump's or GET_SERVICE's message). A firewall-mark service has fwmark set
// and no protocol, address or port.
bool ParseServiceMsg(const uint8_t* p, size_t n, ServiceEntry* out);

// IPVS_CMD_NEW_DEST. `serviceAf` is the destination's family when the kernel does not send
// IPVS_DEST_ATTR_ADDR_FAMILY (kernels before 3.18).
bool ParseDestMsg(const uint8_t* p, size_t n, uint16_t serviceAf, DestEntry* out);

// IPVS_CMD_SET_CONFIG (GET_CONFIG's answer).
bool ParseConfigMsg(const uint8_t* p, size_t n, Timeouts* out);

// The prefix length of a v4 netmask as the kernel holds it (network order); false unless contiguous.
bool V4PrefixOf(uint32_t maskBe, uint8_t* prefix);

// Canonical text: inet_ntop (for IPv6 the RFC 5952 shortest form, as node:net prints it).
std::string AddrText(const Addr& a);

}  // namespace ipvs
}  // namespace kpn
