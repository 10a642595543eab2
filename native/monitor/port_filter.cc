#include "monitor/port_filter.h"

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstddef>

namespace kpn {

std::vector<sock_filter> BuildPortFilter(const std::vector<uint32_t>& ids) {
  std::vector<sock_filter> prog;
  size_t n = ids.size() < kMaxOwnPortIds ? ids.size() : kMaxOwnPortIds;
  // BPF_ABS word loads read network (big-endian) order, while nlmsg_pid is in host order:
  // compare with the id as the load will see it.
  prog.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(nlmsghdr, nlmsg_pid)));
  for (size_t i = 0; i < n; i++) {
    uint8_t toDrop = uint8_t(n - i);  // past the remaining compares and the accept
    prog.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(ids[i]), toDrop, 0));
  }
  prog.push_back(BPF_STMT(BPF_RET | BPF_K, 0xffffffff));  // accept the whole datagram
  prog.push_back(BPF_STMT(BPF_RET | BPF_K, 0));           // drop
  return prog;
}

int AttachPortFilter(int fd, const std::vector<uint32_t>& ids) {
  std::vector<sock_filter> prog = BuildPortFilter(ids);
  sock_fprog fprog{static_cast<unsigned short>(prog.size()), prog.data()};
  return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fprog, sizeof fprog) < 0 ? errno : 0;
}

}  // namespace kpn
