// A netlink socket opened in a chosen network namespace. Shared by the nftables and conntrack
// code (both speak NETLINK_NETFILTER). Not thread-safe: one operation at a time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kpn {

class NetlinkSocket {
 public:
  NetlinkSocket() = default;
  ~NetlinkSocket() { Close(); }
  NetlinkSocket(const NetlinkSocket&) = delete;
  NetlinkSocket& operator=(const NetlinkSocket&) = delete;

  // Opens `protocol` in the netns at `netnsPath` ("" = the caller's). On failure returns a
  // positive errno and sets *what to a description.
  int Open(int protocol, const std::string& netnsPath, std::string* what);
  void Close();
  bool is_open() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  uint32_t portid() const { return portid_; }

  // Reserves `count` consecutive sequence numbers and returns the first.
  uint32_t ReserveSeq(uint32_t count);

  // Grows the socket buffers (SO_*BUFFORCE: root ignores rmem_max/wmem_max). Returns 0 or errno.
  int EnsureSendBuffer(size_t bytes);
  int EnsureRecvBuffer(size_t bytes);

  // Sends [data, data+len) as ONE datagram (one skb on the kernel side). Returns 0 or errno.
  int SendOne(const uint8_t* data, size_t len);

  // Receives one datagram into *buf (resized to its length). Returns 0 or errno
  // (ENOBUFS: the kernel dropped replies; EAGAIN: the receive timeout expired).
  int RecvOne(std::vector<uint8_t>* buf);

 private:
  int fd_ = -1;
  uint32_t portid_ = 0;
  uint32_t seq_ = 0;
  size_t sndbuf_ = 0, rcvbuf_ = 0;
  std::unique_ptr<uint8_t[]> rx_;  // receive scratch, allocated on first use
};

}  // namespace kpn
