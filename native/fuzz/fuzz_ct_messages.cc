// libFuzzer entry: one datagram from ctnetlink, as the conntrack calls receive it. Every message
// goes through every decoder (the callers pick by type, but each must survive any body): the
// entry parser and the user-space matching of conntrackDelete (with and without collapsed
// queries), re-encoding the entry's tuple into a DELETE, conntrackList's DNAT flow parser for
// each family and protocol, the stats replies (the entry count; the per-CPU and global statistics
// message by message, and the whole input split in two as the two replies) and the error code.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "conntrack/ct_messages.h"
#include "conntrack/ct_queries.h"
#include "conntrack/ct_stats_messages.h"
#include "netlink/attr.h"
#include "netlink/builder.h"

using namespace kpn::ct;

namespace {

Filter MakeFilter(uint8_t family, uint8_t proto, const char* dst, uint16_t port, const char* reply) {
  Filter f;
  f.family = family;
  f.proto = proto;
  if (dst) f.hasOrigDst = inet_pton(family, dst, f.origDst) == 1;
  f.hasOrigDstPort = port != 0;
  f.origDstPort = port;
  if (reply) f.hasReplySrc = inet_pton(family, reply, f.replySrc) == 1;
  return f;
}

const std::vector<Filter>& Filters() {
  static const std::vector<Filter> filters = {
      MakeFilter(AF_INET, IPPROTO_UDP, "10.96.0.10", 53, "10.0.1.1"),
      MakeFilter(AF_INET, IPPROTO_UDP, "10.96.0.10", 53, nullptr),
      MakeFilter(AF_INET, IPPROTO_UDP, nullptr, 30053, "10.0.1.2"),
      MakeFilter(AF_INET6, IPPROTO_UDP, "fd00:96::10", 53, "fd00:1::1"),
      MakeFilter(AF_INET, IPPROTO_SCTP, "10.96.0.30", 9000, nullptr),
      MakeFilter(AF_INET, IPPROTO_UDP, nullptr, 0, "10.0.1.1"),
  };
  return filters;
}

const std::vector<Query>& Plan(bool collapsed) {
  static const std::vector<Query> grouped = PlanQueries(Filters(), -1, 3000);
  static const std::vector<Query> one = PlanQueries(Filters(), 0, 3000);
  return collapsed ? one : grouped;
}

void Decode(const uint8_t* p, size_t n) {
  int err = ReplyErrorCode(p, n);
  volatile int64_t sink = -err + ParseStatsEntries(p, n);  // the callers negate the error code
  for (uint16_t type : {uint16_t(NLMSG_ERROR), uint16_t(NLMSG_DONE), uint16_t(0x104), uint16_t(0x105)}) {
    Stats stats;
    Failure failure;
    sink = sink + int64_t(FeedCpuStats(type, p, n, &stats, &failure)) + int64_t(stats.counters[10]);
    sink = sink + int64_t(FeedGlobalStats(type, p, n, &stats, &failure)) + stats.entries + stats.maxEntries;
  }
  Entry e;
  if (ParseEntry(p, n, &e)) {
    for (bool collapsed : {false, true}) {
      for (const Query& q : Plan(collapsed)) sink = sink + FirstMatch(q, e);
    }
    kpn::NlBuilder b;
    AppendDelete(b, e, 1);
    sink = sink + (b.ok() ? int64_t(b.size()) : -1);
  }
  for (uint8_t family : {uint8_t(AF_INET), uint8_t(AF_INET6)}) {
    for (uint8_t proto : {uint8_t(IPPROTO_UDP), uint8_t(IPPROTO_SCTP)}) {
      DnatFlow flow;
      FlowKind kind = ParseDnatFlow(p, n, family, proto, &flow);
      if (kind == FlowKind::kDnat) sink = sink + flow.origDstPort + flow.replySrcPort + flow.replySrc[15];
    }
  }
  (void)sink;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Stats stats;
  Failure failure;
  size_t half = (size / 2) & ~size_t(3);
  volatile bool ok = DecodeStatsReplies(data, half, data + half, size - half, &stats, &failure);
  (void)ok;
  kpn::ForEachMsg(data, size, [](const nlmsghdr&, const uint8_t* p, size_t n) {
    Decode(p, n);
    return true;
  });
  return 0;
}
