#include "rtnl/addr_replies.h"

#include <linux/netlink.h>

#include "netlink/attr.h"

namespace kpn {
namespace rtnl {

bool FeedAddrReplies(const uint8_t* buf, size_t n, AddrBatchReplies* st) {
  bool ok = true;
  bool wellFormed = ForEachMsg(buf, n, [&](const nlmsghdr& h, const uint8_t* p, size_t len) {
    if (h.nlmsg_type != NLMSG_ERROR) return true;  // no data replies to NEWADDR/DELADDR
    uint32_t rel = h.nlmsg_seq - st->base;         // wraps for seqs below base: out of range
    if (rel >= st->acked.size()) return true;
    NlAck ack;
    if (!ParseAck(h, p, len, &ack)) {
      ok = false;
      return false;
    }
    if (st->acked[rel]) return true;
    st->acked[rel] = true;
    st->pending--;
    if (ack.error != 0) st->errors.push_back(AddrOpError{st->first + rel, ack.error, ack.extack});
    return true;
  });
  return ok && wellFormed;
}

void FailPending(AddrBatchReplies* st, int errnum, const char* why) {
  for (size_t i = 0; i < st->acked.size(); i++) {
    if (st->acked[i]) continue;
    st->acked[i] = true;
    st->errors.push_back(AddrOpError{st->first + i, errnum, why});
  }
  st->pending = 0;
}

}  // namespace rtnl
}  // namespace kpn
