// libFuzzer entry: the notification parser and the per-commit grouper, fed a sequence of
// datagrams as a reader thread would. Input: byte 0 picks the own port ids and when to simulate
// an overflow; then chunks of [u16 little-endian length][datagram bytes] (a short tail is a
// datagram of its own). Pure code: no sockets, no N-API.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "nft/notify.h"
#include "nft/notify_commits.h"

namespace {

void Check(const kpn::nft::CommitReport& r) {
  // Reports are formed only from interesting or unknown changes, each counted at least once.
  if (r.changes.empty()) __builtin_trap();
  for (const auto& c : r.changes) {
    if (c.count == 0) __builtin_trap();
    bool interesting = (c.family == 2 && c.table == "kube-proxy") || (c.family == 1 && c.table == "filter");
    if (c.kind != kpn::nft::ChangeKind::kUnknown && !interesting) __builtin_trap();
    volatile size_t n = std::strlen(kpn::nft::ChangeOpName(c.op)) + std::strlen(kpn::nft::ChangeKindName(c.kind));
    (void)n;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t ctl = data[0];
  std::vector<uint32_t> own;
  if (ctl & 1) own.push_back(0);
  if (ctl & 2) own.push_back(4242);
  if (ctl & 4) own.push_back(0x01020304);
  kpn::nft::CommitGrouper grouper({{2, "kube-proxy"}, {1, "filter"}});
  std::vector<kpn::nft::CommitReport> reports;
  std::vector<kpn::nft::NotifyMsg> msgs;
  size_t off = 1, index = 0;
  while (off < size) {
    size_t len = size - off;
    const uint8_t* p = data + off;
    if (len >= 2) {
      uint16_t want;
      std::memcpy(&want, p, 2);
      if (want <= len - 2) len = want;
      else len -= 2;
      p += 2;
      off += 2;
    }
    msgs.clear();
    kpn::nft::ParseNotifyDatagram(p, len, &msgs);
    grouper.Feed(p, len, own, &reports);
    off += len;
    if ((ctl >> 4) != 0 && ++index % (ctl >> 4) == 0) grouper.Discard();  // an overflow
  }
  if (ctl & 8) grouper.Flush(&reports);  // the reader's NEWGEN timeout
  for (const auto& r : reports) Check(r);
  return 0;
}
