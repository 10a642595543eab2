// Turns the caller's filters into kernel dump queries. Every dump walks the kernel's whole
// conntrack hash table (about 18 ms with 262144 buckets, whatever it returns), so:
// - filters that share their original-direction part (the same Service IP and port, typically
//   one per removed endpoint) become ONE dump filtered on that part; the reply part (which
//   endpoint) is matched in user space among the few entries returned;
// - when that still leaves several dumps for one family+protocol and the namespace's table is
//   small enough that returning all its entries of that protocol is cheaper than the extra walks,
//   they become one dump filtered on family+protocol only, matched in user space by index.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "conntrack/ct_types.h"

namespace kpn::ct {

struct Query {
  Filter kernel;                // what the kernel filters on
  std::vector<Filter> members;  // a returned entry is kept if it matches one of these
  std::vector<uint32_t> memberIndex;  // each member's index in the caller's filters
  // members by the original-direction fields they name (see ct_queries.cc), for O(1) matching
  std::unordered_map<std::string, std::vector<uint32_t>> byOrig;
};

// tableEntries: the namespace's conntrack entry count (any protocol), or -1 when unknown (then
// nothing is collapsed). dumpCostEntries: how many returned entries one extra table walk is
// worth; 0 disables collapsing.
std::vector<Query> PlanQueries(const std::vector<Filter>& filters, int64_t tableEntries,
                               uint32_t dumpCostEntries);

// The caller's index of the first member the entry matches, or -1 when none.
int64_t FirstMatch(const Query& q, const Entry& e);

}  // namespace kpn::ct
