#include "ipset/ipset_destroy.h"

#include <linux/netfilter/ipset/ip_set.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include "netlink/builder.h"
#include "netlink/request.h"
#include "netlink/socket.h"

namespace kpn {
namespace ipset {

std::vector<uint8_t> DestroyRequest(const std::string& name, uint32_t seq) {
  NlBuilder b;
  const uint16_t type = uint16_t((NFNL_SUBSYS_IPSET << 8) | IPSET_CMD_DESTROY);
  // The ipset tool sends AF_INET in nfgenmsg for commands that name a set; the kernel ignores it.
  // NLM_F_EXCL as `ipset destroy` without -exist sends it: a missing set is ENOENT, not success.
  size_t msg = b.BeginMsg(type, NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL, seq, AF_INET, 0);
  b.PutU8(IPSET_ATTR_PROTOCOL, IPSET_PROTOCOL);
  b.PutStr(IPSET_ATTR_SETNAME, name);
  b.EndMsg(msg);
  return b.data();
}

bool DestroySets(const std::string& netnsPath, const std::vector<std::string>& names,
                 std::vector<DestroyOutcome>* out, int* errnum, std::string* what) {
  NetlinkSocket sock;
  int e = sock.Open(NETLINK_NETFILTER, netnsPath, what);
  if (e != 0) {
    *errnum = e;
    return false;
  }
  for (const std::string& name : names) {
    const uint32_t seq = sock.ReserveSeq(1);
    RequestError r = RunRequest(sock, DestroyRequest(name, seq), seq, [](const nlmsghdr&, const uint8_t*, size_t) {});
    out->push_back(DestroyOutcome{name, r.errnum, r.message});
  }
  return true;
}

}  // namespace ipset
}  // namespace kpn
