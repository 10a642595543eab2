// The rtnetlink exchanges over a NETLINK_ROUTE socket: one link by name, creating a dummy link,
// deleting a link, dumping addresses, and applying a batch of address operations.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netlink/request.h"
#include "netlink/socket.h"
#include "rtnl/rtnl_types.h"

namespace kpn {
namespace rtnl {

// The link named so; the kernel's ENODEV when there is none.
RequestError GetLink(NetlinkSocket& sock, const std::string& name, LinkInfo* out);
RequestError CreateDummyLink(NetlinkSocket& sock, const std::string& name);
RequestError DeleteLink(NetlinkSocket& sock, const std::string& name);
// Every IPv4 and IPv6 address, or those of one link (linkIndex > 0).
RequestError DumpAddrs(NetlinkSocket& sock, int32_t linkIndex, std::vector<AddrInfo>* out);

struct AddrApplyResult {
  size_t sends = 0;                 // sendmsg calls (datagrams): one per kMaxAddrOpsPerSend ops
  std::vector<AddrOpError> errors;  // by op index, ascending
  RequestError sendFailure;         // set when the first send failed (nothing reached the kernel)
};

// Ops per datagram: the kernel queues one ack skb (~1 KiB of receive buffer) per message before we
// read any, so a datagram's acks must fit the receive buffer raised for them.
constexpr size_t kMaxAddrOpsPerSend = 16384;

AddrApplyResult ApplyAddrOps(NetlinkSocket& sock, const std::vector<AddrOp>& ops);

}  // namespace rtnl
}  // namespace kpn
