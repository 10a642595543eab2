#include "ipvs/apply_replies.h"

#include <linux/netlink.h>

#include "netlink/attr.h"

namespace kpn {
namespace ipvs {

bool FeedApplyReplies(const uint8_t* buf, size_t n, SendReplies& st, std::vector<ApplyError>* errors) {
  bool malformedAck = false;
  bool ok = ForEachMsg(buf, n, [&](const nlmsghdr& h, const uint8_t* p, size_t len) {
    if (h.nlmsg_type != NLMSG_ERROR) return true;  // no op message has a data reply
    NlAck ack;
    if (!ParseAck(h, p, len, &ack)) {
      malformedAck = true;
      return false;
    }
    uint32_t rel = ack.seq - st.base;
    if (rel >= st.count) return true;  // a stale reply of an earlier operation
    if (rel + 1 > st.answered) st.answered = rel + 1;
    if (ack.error != 0) errors->push_back(ApplyError{st.firstOp + rel, ack.error, ack.extack});
    if (rel == st.count - 1) st.done = true;
    return true;
  });
  return ok && !malformedAck;
}

}  // namespace ipvs
}  // namespace kpn
