// The monitor's socket and reader thread, free of N-API: a NETLINK_NETFILTER socket in a netns
// joined to NFNLGRP_NFTABLES, read on a dedicated thread that poll()s the socket and an eventfd
// (written by Stop() to wake it), groups what arrives by commit and hands batches of events to a sink.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "netlink/socket.h"
#include "nft/notify_commits.h"

namespace kpn {

struct MonitorEvent {
  enum class Type : uint8_t { kCommit, kOverflow, kError } type = Type::kCommit;
  nft::CommitReport report;  // kCommit
  int errnum = 0;            // kError
  std::string message;       // kError
};

struct MonitorOptions {
  std::string netnsPath;                // "" = the caller's namespace
  std::vector<nft::TableRef> interest;
  std::vector<uint32_t> ownPortIds;
  size_t recvBufferBytes = 32 << 20;
};

class MonitorReader {
 public:
  // Receives each batch on the reader thread; returns false when nobody listens any more (the
  // thread then ends). It may block: the kernel keeps queueing meanwhile, up to the buffer.
  using Sink = std::function<bool(std::vector<MonitorEvent>&&)>;

  MonitorReader() = default;
  ~MonitorReader() { Stop(); }
  MonitorReader(const MonitorReader&) = delete;
  MonitorReader& operator=(const MonitorReader&) = delete;

  // Opens and subscribes the socket (the own-port filter is attached before joining, so no own
  // datagram slips in). Returns 0 or an errno, with *what naming the step that failed.
  int Open(const MonitorOptions& opts, std::string* what);
  // Starts the reader thread (once, after a successful Open). Returns 0 or an errno.
  int Start(Sink sink);
  // Replaces the own port ids: re-attaches the filter, and the reader drops their messages too
  // (datagrams queued before the new filter). Returns 0 or an errno.
  int SetOwnPortIds(std::vector<uint32_t> ids);
  // Leaves (false) or rejoins (true) NFNLGRP_NFTABLES. While nobody in the namespace listens, the
  // kernel builds no notifications at all: a large commit of ours costs several times less then.
  // Returns 0 or an errno.
  int SetSubscribed(bool on);
  // Wakes and joins the thread, closes the socket. Idempotent. The sink must not block forever
  // (the N-API layer aborts its queue before calling this).
  void Stop();

  uint32_t portId() const { return sock_.portid(); }

  // What reached the reader (past the kernel-side filter): for tests and metrics.
  struct Stats { uint64_t datagrams, bytes, overflows; };
  Stats stats() const { return {datagrams_.load(), bytes_.load(), overflows_.load()}; }

 private:
  void Run();
  bool Drain(std::vector<MonitorEvent>* events);  // false: a fatal socket error was queued
  void RefreshOwn();

  NetlinkSocket sock_;
  int wakeFd_ = -1;
  std::thread thread_;
  Sink sink_;
  nft::CommitGrouper grouper_{{}};
  std::vector<uint8_t> buf_;

  std::mutex ownMu_;
  std::vector<uint32_t> own_;          // guarded by ownMu_, sorted
  std::atomic<uint64_t> ownVersion_{0};
  std::atomic<uint64_t> datagrams_{0}, bytes_{0}, overflows_{0};
  uint64_t seenVersion_ = 0;           // reader thread only
  std::vector<uint32_t> ownLocal_;     // reader thread only
};

}  // namespace kpn
