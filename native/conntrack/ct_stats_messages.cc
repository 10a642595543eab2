#include "conntrack/ct_stats_messages.h"

#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "conntrack/ct_messages.h"
#include "netlink/attr.h"
#include "netlink/attr_iter.h"

namespace kpn::ct {

namespace {

constexpr uint16_t kStatsCpu = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET_STATS_CPU;
constexpr uint16_t kStatsGlobal = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET_STATS;
constexpr size_t kGenLen = NLMSG_ALIGN(sizeof(nfgenmsg));
static_assert(CTA_STATS_MAX < kStatsCounterSlots, "a counter type would not fit Stats::counters");

StatsStep Failed(Failure* f, const std::string& msg, int err) {
  f->message = msg;
  f->errnum = err;
  return StatsStep::kFailed;
}

StatsStep KernelError(const uint8_t* body, size_t len, const char* what, Failure* f) {
  int e = ReplyErrorCode(body, len);
  if (e == 0) return StatsStep::kDone;
  return Failed(f, std::string(what) + " refused by the kernel: " + std::strerror(-e), -e);
}

// One CPU's counters added to out; false when the message is malformed (out unchanged then).
bool AddCpu(const uint8_t* body, size_t len, Stats* out) {
  if (len < kGenLen) return false;
  Stats one;
  AttrIter it(body + kGenLen, len - kGenLen);
  Attr a;
  uint32_t v;
  while (it.Next(&a)) {
    if (a.type == CTA_STATS_UNSPEC || a.type > CTA_STATS_MAX) continue;  // unknown: skipped, any length
    if (!ReadBe32(a, &v)) return false;
    one.counters[a.type] += v;
    one.present[a.type] = true;
  }
  if (it.malformed()) return false;
  for (int i = 0; i < kStatsCounterSlots; i++) {
    out->counters[i] += one.counters[i];
    out->present[i] = out->present[i] || one.present[i];
  }
  out->cpus++;
  return true;
}

bool ParseGlobal(const uint8_t* body, size_t len, Stats* out) {
  if (len < kGenLen) return false;
  AttrIter it(body + kGenLen, len - kGenLen);
  Attr a;
  uint32_t v;
  int64_t entries = -1, max = -1;
  while (it.Next(&a)) {
    if (a.type != CTA_STATS_GLOBAL_ENTRIES && a.type != CTA_STATS_GLOBAL_MAX_ENTRIES) continue;
    if (!ReadBe32(a, &v)) return false;
    (a.type == CTA_STATS_GLOBAL_ENTRIES ? entries : max) = v;
  }
  if (it.malformed() || entries < 0 || max < 0) return false;
  out->entries = entries;
  out->maxEntries = max;
  return true;
}

// Feeds every message of `data` (whole datagrams) to feed until it completes or fails.
template <typename Feed>
bool FeedAll(const uint8_t* data, size_t len, const char* what, Stats* out, Failure* failure, Feed feed) {
  StatsStep step = StatsStep::kMore;
  bool wellFormed = ForEachMsg(data, len, [&](const nlmsghdr& h, const uint8_t* body, size_t n) {
    step = feed(h.nlmsg_type, body, n, out, failure);
    return step == StatsStep::kMore;
  });
  if (step == StatsStep::kDone) return true;
  if (step == StatsStep::kFailed) return false;
  Failed(failure, std::string(wellFormed ? "" : "malformed ") + what + (wellFormed ? " reply ended early" : " reply"), EPROTO);
  return false;
}

}  // namespace

void AppendStatsCpuRequest(NlBuilder& b, uint32_t seq) {
  size_t msg = b.BeginMsg(kStatsCpu, NLM_F_REQUEST | NLM_F_DUMP, seq, AF_UNSPEC, 0);
  b.EndMsg(msg);
}

void AppendStatsGlobalRequest(NlBuilder& b, uint32_t seq) {
  size_t msg = b.BeginMsg(kStatsGlobal, NLM_F_REQUEST, seq, AF_UNSPEC, 0);
  b.EndMsg(msg);
}

StatsStep FeedCpuStats(uint16_t type, const uint8_t* body, size_t len, Stats* out, Failure* failure) {
  if (type == NLMSG_DONE || type == NLMSG_ERROR) return KernelError(body, len, "per-CPU conntrack statistics", failure);
  if (type != kStatsCpu) return StatsStep::kMore;
  if (!AddCpu(body, len, out)) return Failed(failure, "malformed per-CPU conntrack statistics in the kernel's reply", EPROTO);
  return StatsStep::kMore;
}

StatsStep FeedGlobalStats(uint16_t type, const uint8_t* body, size_t len, Stats* out, Failure* failure) {
  if (type == NLMSG_ERROR) {
    // An ack (error 0) before the reply would be odd but harmless: keep reading.
    StatsStep s = KernelError(body, len, "conntrack statistics", failure);
    return s == StatsStep::kDone ? StatsStep::kMore : s;
  }
  if (type == NLMSG_DONE) return Failed(failure, "conntrack statistics reply ended without the statistics", EPROTO);
  if (type != kStatsGlobal) return StatsStep::kMore;
  if (!ParseGlobal(body, len, out)) return Failed(failure, "malformed conntrack statistics in the kernel's reply", EPROTO);
  return StatsStep::kDone;
}

bool DecodeStatsReplies(const uint8_t* cpu, size_t cpuLen, const uint8_t* global, size_t globalLen,
                        Stats* out, Failure* failure) {
  return FeedAll(cpu, cpuLen, "per-CPU conntrack statistics", out, failure, FeedCpuStats) &&
         FeedAll(global, globalLen, "conntrack statistics", out, failure, FeedGlobalStats);
}

}  // namespace kpn::ct
