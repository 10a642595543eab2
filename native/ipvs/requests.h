// The IPVS requests that read or set state over a NETLINK_GENERIC socket: the family lookup,
// service and destination dumps, one service's lookup, the timeouts. Each is one request and its
// replies (netlink/request.h); replies are parsed by replies.h.
#pragma once
#include <cstdint>
#include <vector>

#include "ipvs/types.h"
#include "netlink/request.h"
#include "netlink/socket.h"

namespace kpn {
namespace ipvs {

struct ServiceState {
  Service service;
  std::vector<DestEntry> dests;
};

// CTRL_CMD_GETFAMILY "IPVS". ENOENT (with a message saying so) when the kernel has no IPVS.
RequestError ResolveFamily(NetlinkSocket& sock, uint16_t* familyId);

// Every address/port service (firewall-mark services are skipped) with its destinations.
RequestError DumpAll(NetlinkSocket& sock, uint16_t familyId, std::vector<ServiceState>* out);

// One service's destinations. ESRCH (the kernel's answer) when the service does not exist.
RequestError DumpDests(NetlinkSocket& sock, uint16_t familyId, const ServiceKey& key, std::vector<DestEntry>* out);

RequestError GetTimeouts(NetlinkSocket& sock, uint16_t familyId, Timeouts* out);
// 0 leaves a timeout as it is (the kernel skips it).
RequestError SetTimeouts(NetlinkSocket& sock, uint16_t familyId, const Timeouts& t);

}  // namespace ipvs
}  // namespace kpn
