// Plain data for the conntrack calls: what the caller asks for (Filter, ListRequest) and what the
// kernel reports (Entry, DnatFlow). Addresses are kept in network byte order, 4 or 16 bytes used.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kpn::ct {

struct Filter {
  uint8_t family = 0;  // AF_INET or AF_INET6
  uint8_t proto = 0;   // IPPROTO_UDP, IPPROTO_TCP or IPPROTO_SCTP
  bool hasOrigDst = false, hasOrigDstPort = false, hasReplySrc = false, hasReplySrcPort = false;
  uint8_t origDst[16] = {};
  uint16_t origDstPort = 0;
  uint8_t replySrc[16] = {};
  uint16_t replySrcPort = 0;
  int8_t dnat = -1;  // -1: any flow; 0: only flows that were not DNATed; 1: only DNATed ones
};

struct Tuple {
  uint8_t src[16] = {}, dst[16] = {};
  bool hasSrc = false, hasDst = false;
  uint8_t proto = 0;
  bool hasProto = false;
  uint16_t srcPort = 0, dstPort = 0;
  bool hasSrcPort = false, hasDstPort = false;
};

struct Entry {
  uint8_t family = 0;
  Tuple orig, reply;
  std::vector<uint8_t> origAttr;  // the CTA_TUPLE_ORIG payload as the kernel sent it
  bool hasZone = false;
  uint16_t zone = 0;
  bool hasId = false;
  uint32_t id = 0;
  bool hasStatus = false;
  uint32_t status = 0;  // IPS_* bits (CTA_STATUS)
};

struct DeleteOptions {
  // How many returned entries one extra kernel table walk is worth (see ct_queries.h); 0 = always
  // one dump per Service IP:port. Measured: a walk of 262144 buckets ~ 18 ms, an entry ~ 5 us.
  uint32_t dumpCostEntries = 3000;
};

struct DeleteStats {
  int64_t tableEntries = -1;  // the namespace's entry count when it was asked for, else -1
  uint32_t dumps = 0;      // filtered dump requests sent (filters sharing Service IP:port share one)
  uint32_t received = 0;   // entries the kernel returned (its filter already applied)
  uint32_t matched = 0;    // distinct entries of those that match a filter
  uint32_t deleted = 0;    // DELETE acknowledged
  uint32_t deletedUdp = 0, deletedTcp = 0, deletedSctp = 0;  // `deleted` by the entry's protocol
  uint32_t notFound = 0;   // DELETE answered ENOENT: the entry went away on its own meanwhile
  uint32_t failed = 0;     // DELETE answered with another error
  int firstFailErrno = 0;  // positive errno of the first failure, 0 when none
  // Indices (into the caller's filters) of the filters whose matched entries got a failed DELETE,
  // ascending, without duplicates. An entry matching several filters counts for the first.
  std::vector<uint32_t> failedFilters;
};

// A kernel-filtered dump of one family and protocol, keeping the flows with IPS_DST_NAT.
struct ListRequest {
  uint8_t family = 0;  // AF_INET or AF_INET6
  uint8_t proto = 0;   // IPPROTO_UDP or IPPROTO_SCTP
  uint32_t max = 0;    // stop after this many flows (then ListResult.truncated)
};

// One DNATed flow: who sent to which address, and where the DNAT sent it (the reply's source).
struct DnatFlow {
  uint8_t origSrc[16] = {}, origDst[16] = {}, replySrc[16] = {};
  uint16_t origSrcPort = 0, origDstPort = 0, replySrcPort = 0;
};

struct ListResult {
  std::vector<DnatFlow> flows;
  bool truncated = false;  // more DNATed flows existed than ListRequest.max
  uint32_t received = 0;   // entries the kernel returned (its filters applied)
};

// The kernel's conntrack statistics: the per-CPU counters (ctattr_stats_cpu, each a u32 per CPU)
// summed over the CPUs, indexed by their CTA_STATS_* attribute type, and the table's size.
constexpr int kStatsCounterSlots = 32;  // > CTA_STATS_MAX (15 in Linux 6.x); higher types are skipped
struct Stats {
  uint64_t counters[kStatsCounterSlots] = {};
  bool present[kStatsCounterSlots] = {};  // the kernel sent this counter for at least one CPU
  uint32_t cpus = 0;                      // per-CPU messages received
  int64_t entries = -1;                   // CTA_STATS_GLOBAL_ENTRIES
  int64_t maxEntries = -1;                // CTA_STATS_GLOBAL_MAX_ENTRIES (nf_conntrack_max)
};

// Why a conntrack call failed as a whole.
struct Failure {
  std::string message;
  int errnum = 0;  // positive
};

}  // namespace kpn::ct
