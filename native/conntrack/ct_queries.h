// Turns the caller's filters into kernel dump queries. Each dump walks the whole conntrack table
// in the kernel, so filters that share their original-direction part (the same Service IP and
// port, typically one per removed endpoint) are asked as ONE dump on that part; the reply part
// (which endpoint) is then matched in user space among the few entries returned.
#pragma once
#include <vector>

#include "ct_types.h"

namespace kpn::ct {

struct Query {
  Filter kernel;                // what the kernel filters on
  std::vector<Filter> members;  // a returned entry is kept if it matches one of these
};

// Filters naming no original-direction field are never merged: their shared part would be
// "every flow of this protocol".
std::vector<Query> PlanQueries(const std::vector<Filter>& filters);

}  // namespace kpn::ct
