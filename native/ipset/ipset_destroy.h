// ipset over netlink (NFNL_SUBSYS_IPSET on NETLINK_NETFILTER): destroying sets by name, what
// --cleanup needs for upstream's IPVS mode's leftovers. No policy: each name gets the kernel's
// answer (0, ENOENT for a missing set, IPSET_ERR_BUSY while a rule still refers to it, ...);
// src/cleanup decides what each means and whether to try again.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kpn {
namespace ipset {

// IPSET_MAXNAMELEN less the NUL the kernel wants inside it.
constexpr size_t kMaxSetName = 31;

// The IPSET_CMD_DESTROY request for one set (IPSET_ATTR_PROTOCOL and IPSET_ATTR_SETNAME), with
// NLM_F_ACK and NLM_F_EXCL. Pure (the fuzz seeds and tests build it too); `name` must be 1..kMaxSetName bytes
// without NUL (the N-API layer checks it).
std::vector<uint8_t> DestroyRequest(const std::string& name, uint32_t seq);

// errnum 0: destroyed; else the kernel's error, or the send/receive error, with its text.
struct DestroyOutcome { std::string name; int errnum = 0; std::string message; };

// Opens a NETLINK_NETFILTER socket in `netnsPath` ("" = the caller's) and destroys each set in
// order, one request and ack each. False with *errnum / *what when the socket cannot be opened.
bool DestroySets(const std::string& netnsPath, const std::vector<std::string>& names,
                 std::vector<DestroyOutcome>* out, int* errnum, std::string* what);

}  // namespace ipset
}  // namespace kpn
