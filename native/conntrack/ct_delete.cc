#include "conntrack/ct_delete.h"

#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <unordered_set>

#include "conntrack/ct_messages.h"
#include "conntrack/ct_queries.h"
#include "conntrack/ct_socket.h"
#include "netlink/builder.h"

namespace kpn::ct {

namespace {

constexpr size_t kSendChunk = 32 * 1024;
constexpr uint16_t kCtNew = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW;
constexpr uint16_t kCtStats = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET_STATS;

std::string EntryKey(const Entry& e) {
  std::string k(reinterpret_cast<const char*>(e.origAttr.data()), e.origAttr.size());
  k.push_back(static_cast<char>(e.family));
  k.push_back(static_cast<char>(e.hasZone ? 1 : 0));
  k.push_back(static_cast<char>(e.zone >> 8));
  k.push_back(static_cast<char>(e.zone & 0xff));
  return k;
}

bool Fail(DeleteFailure* f, const std::string& msg, int err) {
  f->message = msg;
  f->errnum = err;
  return false;
}

// The namespace's conntrack entry count (IPCTNL_MSG_CT_GET_STATS), or -1 if the kernel won't say.
int64_t TableEntries(CtSocket& sock) {
  uint32_t seq = sock.ReserveSeq(1);
  NlBuilder b;
  size_t msg = b.BeginMsg(kCtStats, NLM_F_REQUEST, seq, AF_UNSPEC, 0);
  b.EndMsg(msg);
  if (!b.ok() || !sock.Send(b.data())) return -1;
  int64_t entries = -1;
  bool ok = sock.Receive([&](uint16_t type, uint32_t s, const uint8_t* body, size_t len) {
    if (s != seq) return true;
    if (type == kCtStats) entries = ParseStatsEntries(body, len);
    return false;  // the reply or an error: either way, done
  });
  return ok ? entries : -1;
}

// Entries to delete, each with the index of the caller's filter it matched.
struct Matched {
  std::vector<Entry> entries;
  std::vector<uint32_t> filterOf;
  std::unordered_set<std::string> seen;
};

// One filtered dump; appends matching entries not seen before.
bool DumpOne(CtSocket& sock, const Query& query, uint32_t seq, Matched& out, DeleteStats* stats,
             DeleteFailure* failure) {
  NlBuilder b;
  AppendDumpRequest(b, query.kernel, seq);
  if (!b.ok()) return Fail(failure, "conntrack dump request too large", EMSGSIZE);
  if (!sock.Send(b.data())) return Fail(failure, sock.error(), sock.errnum());
  int kernelErr = 0;
  bool parseErr = false;
  bool ok = sock.Receive([&](uint16_t type, uint32_t s, const uint8_t* body, size_t len) {
    if (s != seq) return true;  // a late reply to something earlier: not ours
    if (type == NLMSG_DONE || type == NLMSG_ERROR) {
      int e = ReplyErrorCode(body, len);
      if (e < 0) kernelErr = -e;
      return false;
    }
    if (type != kCtNew) return true;
    Entry e;
    if (!ParseEntry(body, len, &e)) { parseErr = true; return true; }
    stats->received++;
    int64_t filter = FirstMatch(query, e);
    if (filter < 0 || !out.seen.insert(EntryKey(e)).second) return true;
    out.entries.push_back(std::move(e));
    out.filterOf.push_back(static_cast<uint32_t>(filter));
    return true;
  });
  if (!ok) return Fail(failure, sock.error(), sock.errnum());
  if (kernelErr) return Fail(failure, std::string("conntrack dump refused by the kernel: ") + std::strerror(kernelErr), kernelErr);
  if (parseErr) return Fail(failure, "malformed conntrack entry in the kernel's reply", EPROTO);
  return true;
}

// Sends `count` deletes (seq firstSeq.., entries first..) as one datagram and counts their acks.
void CountDeleted(uint8_t proto, DeleteStats* stats) {
  stats->deleted++;
  if (proto == IPPROTO_UDP) stats->deletedUdp++;
  if (proto == IPPROTO_TCP) stats->deletedTcp++;
  if (proto == IPPROTO_SCTP) stats->deletedSctp++;
}

bool DeleteChunk(CtSocket& sock, const NlBuilder& b, uint32_t firstSeq, uint32_t count, const Entry* entries,
                 const uint32_t* filterOf, DeleteStats* stats, DeleteFailure* failure) {
  if (!sock.Send(b.data())) return Fail(failure, sock.error(), sock.errnum());
  uint32_t acked = 0;
  bool ok = sock.Receive([&](uint16_t type, uint32_t s, const uint8_t* body, size_t blen) {
    if (type != NLMSG_ERROR || s - firstSeq >= count) return true;  // unsigned: wraps safely
    int e = ReplyErrorCode(body, blen);
    if (e == 0) {
      CountDeleted(entries[s - firstSeq].orig.proto, stats);
    } else if (e == -ENOENT) {
      stats->notFound++;
    } else {
      stats->failed++;
      if (!stats->firstFailErrno) stats->firstFailErrno = -e;
      stats->failedFilters.push_back(filterOf[s - firstSeq]);
    }
    return ++acked < count;
  });
  if (!ok) return Fail(failure, sock.error(), sock.errnum());
  return true;
}

bool DeleteAll(CtSocket& sock, const Matched& matched, DeleteStats* stats, DeleteFailure* failure) {
  const std::vector<Entry>& entries = matched.entries;
  size_t i = 0;
  while (i < entries.size()) {
    size_t end = i;
    size_t bytes = 0;
    while (end < entries.size() && (end == i || bytes < kSendChunk)) bytes += entries[end++].origAttr.size() + 64;
    uint32_t count = static_cast<uint32_t>(end - i);
    uint32_t first = sock.ReserveSeq(count);
    NlBuilder b;
    for (uint32_t k = 0; k < count; k++) AppendDelete(b, entries[i + k], first + k);
    if (!b.ok()) return Fail(failure, "conntrack delete message too large", EMSGSIZE);
    if (!DeleteChunk(sock, b, first, count, entries.data() + i, matched.filterOf.data() + i, stats, failure)) return false;
    i = end;
  }
  return true;
}

}  // namespace

bool DeleteMatching(const std::string& netnsPath, const std::vector<Filter>& filters,
                    const DeleteOptions& opts, DeleteStats* stats, DeleteFailure* failure) {
  if (filters.empty()) return true;
  CtSocket sock;
  if (!sock.Open(netnsPath)) return Fail(failure, sock.error(), sock.errnum());
  Matched matched;
  stats->tableEntries = opts.dumpCostEntries > 0 && filters.size() > 1 ? TableEntries(sock) : -1;
  for (const Query& q : PlanQueries(filters, stats->tableEntries, opts.dumpCostEntries)) {
    if (!DumpOne(sock, q, sock.ReserveSeq(1), matched, stats, failure)) return false;
    stats->dumps++;
  }
  stats->matched = static_cast<uint32_t>(matched.entries.size());
  bool ok = DeleteAll(sock, matched, stats, failure);
  std::vector<uint32_t>& ff = stats->failedFilters;
  std::sort(ff.begin(), ff.end());
  ff.erase(std::unique(ff.begin(), ff.end()), ff.end());
  return ok;
}

}  // namespace kpn::ct
