#include "netlink/socket.h"

#include <fcntl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <thread>

namespace kpn {

namespace {

constexpr size_t kInitialBuffer = 4 << 20;
constexpr size_t kRecvChunk = 1 << 20;  // larger than any single dump datagram the kernel sends
constexpr int kRecvTimeoutSec = 30;     // a safety net against hangs: replies are synchronous

int SetIntOpt(int fd, int level, int opt, int v) {
  return setsockopt(fd, level, opt, &v, sizeof v) < 0 ? errno : 0;
}

// Creates the socket on a throwaway thread that joins the target netns, so the caller's thread
// never changes namespace. A socket stays in the netns it was created in.
int CreateInNetns(int protocol, const std::string& path, int* fdOut, std::string* what) {
  int nsfd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (nsfd < 0) {
    int e = errno;
    *what = "open netns " + path;
    return e;
  }
  int err = 0;
  std::thread t([&] {
    if (setns(nsfd, CLONE_NEWNET) < 0) { err = errno; *what = "setns " + path; return; }
    *fdOut = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
    if (*fdOut < 0) { err = errno; *what = "socket(AF_NETLINK)"; }
  });
  t.join();
  close(nsfd);
  return err;
}

int Configure(int fd, uint32_t* portid, std::string* what) {
  sockaddr_nl sa{};
  sa.nl_family = AF_NETLINK;
  if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0) { *what = "bind"; return errno; }
  socklen_t len = sizeof sa;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) < 0) { *what = "getsockname"; return errno; }
  *portid = sa.nl_pid;
  // Errors come back with just the header (CAP_ACK) plus the kernel's explanation (EXT_ACK).
  if (int e = SetIntOpt(fd, SOL_NETLINK, NETLINK_CAP_ACK, 1)) { *what = "NETLINK_CAP_ACK"; return e; }
  SetIntOpt(fd, SOL_NETLINK, NETLINK_EXT_ACK, 1);  // optional: older kernels lack it
  timeval tv{kRecvTimeoutSec, 0};
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0) { *what = "SO_RCVTIMEO"; return errno; }
  return 0;
}

}  // namespace

int NetlinkSocket::Open(int protocol, const std::string& netnsPath, std::string* what) {
  Close();
  int fd = -1;
  int err = 0;
  if (netnsPath.empty()) {
    fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
    if (fd < 0) { err = errno; *what = "socket(AF_NETLINK)"; }
  } else {
    err = CreateInNetns(protocol, netnsPath, &fd, what);
  }
  if (err == 0) err = Configure(fd, &portid_, what);
  if (err != 0) {
    if (fd >= 0) close(fd);
    return err;
  }
  fd_ = fd;
  seq_ = static_cast<uint32_t>(time(nullptr));
  if ((err = EnsureSendBuffer(kInitialBuffer)) || (err = EnsureRecvBuffer(kInitialBuffer))) {
    *what = "SO_SNDBUFFORCE/SO_RCVBUFFORCE";
    Close();
    return err;
  }
  return 0;
}

void NetlinkSocket::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  sndbuf_ = rcvbuf_ = 0;
}

uint32_t NetlinkSocket::ReserveSeq(uint32_t count) {
  uint32_t first = ++seq_;
  if (first == 0) first = ++seq_;  // seq 0 is what the kernel uses for notifications
  seq_ += count - 1;
  return first;
}

// The kernel doubles the value and caps it at INT_MAX; ask for at most INT_MAX / 2.
static int ClampBuf(size_t bytes) { return bytes > (INT32_MAX / 2) ? INT32_MAX / 2 : int(bytes); }

// *FORCE needs CAP_NET_ADMIN in the socket's user namespace; without it fall back to the plain
// option (capped by the sysctls), which still lets small batches through.
static int SetBuf(int fd, int forceOpt, int plainOpt, size_t bytes) {
  int e = SetIntOpt(fd, SOL_SOCKET, forceOpt, ClampBuf(bytes));
  if (e == EPERM) e = SetIntOpt(fd, SOL_SOCKET, plainOpt, ClampBuf(bytes));
  return e;
}

int NetlinkSocket::EnsureSendBuffer(size_t bytes) {
  if (bytes <= sndbuf_) return 0;
  int e = SetBuf(fd_, SO_SNDBUFFORCE, SO_SNDBUF, bytes);
  if (e == 0) sndbuf_ = bytes;
  return e;
}

int NetlinkSocket::EnsureRecvBuffer(size_t bytes) {
  if (bytes <= rcvbuf_) return 0;
  int e = SetBuf(fd_, SO_RCVBUFFORCE, SO_RCVBUF, bytes);
  if (e == 0) rcvbuf_ = bytes;
  return e;
}

int NetlinkSocket::SendOne(const uint8_t* data, size_t len) {
  if (fd_ < 0) return EBADF;
  if (int e = EnsureSendBuffer(len + 4096)) return e;
  sockaddr_nl sa{};
  sa.nl_family = AF_NETLINK;
  iovec iov{const_cast<uint8_t*>(data), len};
  msghdr msg{};
  msg.msg_name = &sa;
  msg.msg_namelen = sizeof sa;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  for (;;) {
    ssize_t n = sendmsg(fd_, &msg, 0);
    if (n >= 0) return size_t(n) == len ? 0 : EMSGSIZE;
    if (errno != EINTR) return errno;
  }
}

int NetlinkSocket::RecvOne(std::vector<uint8_t>* buf) {
  if (fd_ < 0) return EBADF;
  // Receive into a reused scratch buffer and copy out only what arrived: resizing *buf to the
  // full chunk each time would zero 1 MiB per datagram.
  if (!rx_) rx_.reset(new uint8_t[kRecvChunk]);
  sockaddr_nl sa{};
  iovec iov{rx_.get(), kRecvChunk};
  msghdr msg{};
  msg.msg_name = &sa;
  msg.msg_namelen = sizeof sa;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  for (;;) {
    ssize_t n = recvmsg(fd_, &msg, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == EWOULDBLOCK ? EAGAIN : errno;
    if (msg.msg_flags & MSG_TRUNC) return EMSGSIZE;
    if (sa.nl_pid != 0) continue;  // only the kernel talks to us
    buf->assign(rx_.get(), rx_.get() + n);
    return 0;
  }
}

}  // namespace kpn
