// The delete itself: a kernel-filtered dump per query (filters grouped, see ct_queries.h), then every distinct matching entry
// deleted by its exact tuple, the deletes batched many per sendmsg. Runs on a worker thread.
#pragma once
#include <string>
#include <vector>

#include "conntrack/ct_types.h"

namespace kpn::ct {

using DeleteFailure = Failure;

// False (with *failure set) when the socket cannot be opened or the kernel refuses a dump; DELETE
// errors are counted in stats instead, since the other deletes still happened.
bool DeleteMatching(const std::string& netnsPath, const std::vector<Filter>& filters,
                    const DeleteOptions& opts, DeleteStats* stats, DeleteFailure* failure);

}  // namespace kpn::ct
