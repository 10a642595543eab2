// The listing behind conntrackList: one kernel-filtered dump (family, protocol, IPS_DST_NAT) on a
// NETLINK_NETFILTER socket opened in a netns, keeping at most ListRequest.max flows. Runs on a
// worker thread.
#pragma once
#include <string>

#include "conntrack/ct_types.h"

namespace kpn::ct {

// False (with *failure set) when the socket cannot be opened, the kernel refuses the dump or sends
// an entry that cannot be decoded. Stops reading as soon as one flow more than `max` arrived.
bool ListDnatFlows(const std::string& netnsPath, const ListRequest& req, ListResult* out, Failure* failure);

}  // namespace kpn::ct
