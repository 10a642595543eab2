// libFuzzer entry: one datagram from the kernel to an IPVS socket. Every message goes through each
// reply parser (the requests pick the parser by what they asked, not by the reply's type, so each
// must survive any payload), parsed addresses are formatted, and the datagram is fed as the
// replies of an apply send (FeedApplyReplies), whose errors must name ops of that send.
#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "ipvs/apply_replies.h"
#include "ipvs/replies.h"
#include "netlink/attr.h"

using kpn::ForEachMsg;
using namespace kpn::ipvs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  volatile size_t sum = 0;
  ForEachMsg(data, size, [&](const nlmsghdr&, const uint8_t* p, size_t n) {
    uint16_t id;
    if (ParseFamilyId(p, n, &id)) sum += id;
    ServiceEntry s;
    if (ParseServiceMsg(p, n, &s)) {
      if (s.fwmark == 0 && (s.service.scheduler.empty() || s.service.scheduler.size() > 15)) abort();
      sum += AddrText(s.service.key.addr).size();
    }
    for (uint16_t af : {kAfInet, kAfInet6}) {
      DestEntry d;
      if (ParseDestMsg(p, n, af, &d)) {
        if (d.dest.key.addr.af != kAfInet && d.dest.key.addr.af != kAfInet6) abort();
        if (AddrText(d.dest.key.addr).empty()) abort();
      }
    }
    Timeouts t;
    if (ParseConfigMsg(p, n, &t)) sum += t.tcp;
    return true;
  });
  // The apply side: a send of 16 messages with seqs 1..16, first op 100.
  SendReplies st{1, 16, 100};
  std::vector<ApplyError> errors;
  FeedApplyReplies(data, size, st, &errors);
  for (const ApplyError& e : errors) {
    if (e.opIndex < 100 || e.opIndex >= 116 || e.errnum <= 0 || e.errnum > kpn::kMaxAckErrno) abort();
  }
  if (st.answered > st.count) abort();
  (void)sum;
  return 0;
}
