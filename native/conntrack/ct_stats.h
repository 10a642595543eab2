// The read behind conntrackStats: the per-CPU statistics dump, then the global statistics, on one
// NETLINK_NETFILTER socket opened in a netns. Neither walks the conntrack table, so the cost does
// not grow with the number of entries. Runs on a worker thread.
#pragma once
#include <string>

#include "conntrack/ct_types.h"

namespace kpn::ct {

// False (with *failure set) when the socket cannot be opened, the kernel refuses a request or
// sends a reply that cannot be decoded.
bool ReadStats(const std::string& netnsPath, Stats* out, Failure* failure);

}  // namespace kpn::ct
