#include "monitor/monitor_reader.h"

#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "monitor/port_filter.h"

namespace kpn {

namespace {

constexpr size_t kRecvBuffer = 256 << 10;  // notification datagrams are at most a few pages
constexpr int kMaxPerDrain = 256;           // datagrams read before handing a batch over
// The kernel sends a commit's NEWGEN right after its changes. If it has not come this long after
// the last datagram it was lost in an overflow: report the commit without it rather than hold it
// until the next commit.
constexpr int kNewGenWaitMs = 250;

int SetIntOpt(int fd, int level, int opt, int v) {
  return setsockopt(fd, level, opt, &v, sizeof v) < 0 ? errno : 0;
}

std::vector<uint32_t> Sorted(std::vector<uint32_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

MonitorEvent ErrorEvent(int e, const char* what) {
  MonitorEvent ev;
  ev.type = MonitorEvent::Type::kError;
  ev.errnum = e;
  ev.message = std::string(what) + ": " + std::strerror(e);
  return ev;
}

void AppendReports(std::vector<nft::CommitReport>* reports, std::vector<MonitorEvent>* events) {
  for (auto& r : *reports) events->push_back(MonitorEvent{MonitorEvent::Type::kCommit, std::move(r), 0, {}});
  reports->clear();
}

}  // namespace

int MonitorReader::Open(const MonitorOptions& opts, std::string* what) {
  if (int e = sock_.Open(NETLINK_NETFILTER, opts.netnsPath, what)) return e;
  int fd = sock_.fd();
  // The kernel doubles the value; root may exceed rmem_max with the FORCE variant.
  int half = int(std::min<size_t>(opts.recvBufferBytes / 2, INT_MAX / 2));
  int e = SetIntOpt(fd, SOL_SOCKET, SO_RCVBUFFORCE, half);
  if (e == EPERM) e = SetIntOpt(fd, SOL_SOCKET, SO_RCVBUF, half);
  if (e) { *what = "SO_RCVBUFFORCE"; return e; }
  own_ = Sorted(opts.ownPortIds);
  ownVersion_++;
  if ((e = AttachPortFilter(fd, own_))) { *what = "SO_ATTACH_FILTER"; return e; }
  if ((e = SetIntOpt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, NFNLGRP_NFTABLES))) {
    *what = "NETLINK_ADD_MEMBERSHIP NFNLGRP_NFTABLES";
    return e;
  }
  wakeFd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wakeFd_ < 0) { *what = "eventfd"; return errno; }
  grouper_ = nft::CommitGrouper(opts.interest);
  return 0;
}

int MonitorReader::Start(Sink sink) {
  if (!sock_.is_open() || wakeFd_ < 0 || thread_.joinable()) return EINVAL;
  sink_ = std::move(sink);
  buf_.resize(kRecvBuffer);
  thread_ = std::thread([this] { Run(); });
  return 0;
}

int MonitorReader::SetOwnPortIds(std::vector<uint32_t> ids) {
  if (!sock_.is_open()) return EBADF;
  ids = Sorted(std::move(ids));
  if (int e = AttachPortFilter(sock_.fd(), ids)) return e;
  std::lock_guard<std::mutex> lock(ownMu_);
  own_ = std::move(ids);
  ownVersion_++;
  return 0;
}

int MonitorReader::SetSubscribed(bool on) {
  if (!sock_.is_open()) return EBADF;
  return SetIntOpt(sock_.fd(), SOL_NETLINK, on ? NETLINK_ADD_MEMBERSHIP : NETLINK_DROP_MEMBERSHIP, NFNLGRP_NFTABLES);
}

void MonitorReader::Stop() {
  if (wakeFd_ >= 0) {
    uint64_t one = 1;
    ssize_t w = write(wakeFd_, &one, sizeof one);  // cannot fail short of a full counter
    (void)w;
  }
  if (thread_.joinable()) thread_.join();
  if (wakeFd_ >= 0) close(wakeFd_);
  wakeFd_ = -1;
  sock_.Close();
}

void MonitorReader::RefreshOwn() {
  uint64_t v = ownVersion_.load(std::memory_order_acquire);
  if (v == seenVersion_) return;
  std::lock_guard<std::mutex> lock(ownMu_);
  ownLocal_ = own_;
  seenVersion_ = ownVersion_.load(std::memory_order_relaxed);
}

bool MonitorReader::Drain(std::vector<MonitorEvent>* events) {
  std::vector<nft::CommitReport> reports;
  for (int i = 0; i < kMaxPerDrain; i++) {
    ssize_t n = recv(sock_.fd(), buf_.data(), buf_.size(), MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == ENOBUFS) {  // the kernel dropped notifications: the picture is incomplete
        overflows_++;
        grouper_.Discard();
        AppendReports(&reports, events);
        events->push_back(MonitorEvent{MonitorEvent::Type::kOverflow, {}, 0, {}});
        continue;
      }
      events->push_back(ErrorEvent(errno, "receiving nftables notifications"));
      return false;
    }
    datagrams_++;
    bytes_ += uint64_t(n);
    RefreshOwn();
    grouper_.Feed(buf_.data(), std::min(size_t(n), buf_.size()), ownLocal_, &reports);
  }
  AppendReports(&reports, events);
  return true;
}

void MonitorReader::Run() {
  for (;;) {
    pollfd fds[2] = {{sock_.fd(), POLLIN, 0}, {wakeFd_, POLLIN, 0}};
    int r = poll(fds, 2, grouper_.pending() ? kNewGenWaitMs : -1);
    if (r < 0 && errno == EINTR) continue;
    std::vector<MonitorEvent> events;
    if (r == 0) {
      std::vector<nft::CommitReport> reports;
      grouper_.Flush(&reports);
      AppendReports(&reports, &events);
      if (!events.empty() && !sink_(std::move(events))) return;
      continue;
    }
    if (r < 0) {
      events.push_back(ErrorEvent(errno, "poll"));
      sink_(std::move(events));
      return;
    }
    if (fds[1].revents) return;  // Stop()
    bool alive = Drain(&events);
    if (!events.empty() && !sink_(std::move(events))) return;
    if (!alive) return;
  }
}

}  // namespace kpn
