#include "conntrack/ct_stats.h"

#include <cerrno>

#include "conntrack/ct_socket.h"
#include "conntrack/ct_stats_messages.h"
#include "netlink/builder.h"

namespace kpn::ct {

namespace {

bool Fail(Failure* f, const std::string& msg, int err) {
  f->message = msg;
  f->errnum = err;
  return false;
}

using FeedFn = StatsStep (*)(uint16_t, const uint8_t*, size_t, Stats*, Failure*);

// Sends one request and feeds the replies with its sequence number until done or failed.
bool Ask(CtSocket& sock, void (*append)(NlBuilder&, uint32_t), FeedFn feed, Stats* out, Failure* failure) {
  uint32_t seq = sock.ReserveSeq(1);
  NlBuilder b;
  append(b, seq);
  if (!b.ok()) return Fail(failure, "conntrack statistics request too large", EMSGSIZE);
  if (!sock.Send(b.data())) return Fail(failure, sock.error(), sock.errnum());
  StatsStep step = StatsStep::kMore;
  bool ok = sock.Receive([&](uint16_t type, uint32_t s, const uint8_t* body, size_t len) {
    if (s != seq) return true;
    step = feed(type, body, len, out, failure);
    return step == StatsStep::kMore;
  });
  if (!ok) return Fail(failure, sock.error(), sock.errnum());
  return step == StatsStep::kDone;
}

}  // namespace

bool ReadStats(const std::string& netnsPath, Stats* out, Failure* failure) {
  CtSocket sock;
  if (!sock.Open(netnsPath)) return Fail(failure, sock.error(), sock.errnum());
  return Ask(sock, AppendStatsCpuRequest, FeedCpuStats, out, failure) &&
         Ask(sock, AppendStatsGlobalRequest, FeedGlobalStats, out, failure);
}

}  // namespace kpn::ct
