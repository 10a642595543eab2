// rtnetlink requests (links by name, the dummy link, addresses) and the parsing of the kernel's
// replies. Pure: no socket, so the fuzz target (fuzz/fuzz_rtnl_replies.cc) runs every parser.
#pragma once
#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netlink/builder.h"
#include "rtnl/rtnl_types.h"

namespace kpn {
namespace rtnl {

// RTM_GETLINK for one name (NLM_F_ACK: the reply, then the ack).
std::vector<uint8_t> GetLinkRequest(const std::string& name, uint32_t seq);
// RTM_NEWLINK of a dummy link, NLM_F_CREATE | NLM_F_EXCL, left down (no IFF_UP in ifi_change).
std::vector<uint8_t> NewDummyLinkRequest(const std::string& name, uint32_t seq);
// RTM_DELLINK by name.
std::vector<uint8_t> DelLinkRequest(const std::string& name, uint32_t seq);
// RTM_GETADDR dump of both families (filtered by link in ParseAddr's caller).
std::vector<uint8_t> GetAddrDumpRequest(uint32_t seq);

// Appends RTM_NEWADDR (NLM_F_CREATE | NLM_F_EXCL) or RTM_DELADDR for one op, with NLM_F_ACK, as
// vishvananda/netlink's AddrAdd does for upstream's EnsureAddressBind: scope universe, IFA_LOCAL and
// IFA_ADDRESS both the address; IPv6 adds IFA_F_NODAD (in ifa_flags and IFA_FLAGS) so the address
// is usable at once instead of 'tentative'.
void AppendAddrOp(NlBuilder& b, const AddrOp& op, uint32_t seq);

enum class ParseResult { kOk, kSkip, kMalformed };

// An RTM_NEWLINK message's payload (after the nlmsghdr).
ParseResult ParseLink(const nlmsghdr& h, const uint8_t* p, size_t n, LinkInfo* out);
// An RTM_NEWADDR message's payload; kSkip for families other than IPv4/IPv6.
ParseResult ParseAddr(const nlmsghdr& h, const uint8_t* p, size_t n, AddrInfo* out);

}  // namespace rtnl
}  // namespace kpn
