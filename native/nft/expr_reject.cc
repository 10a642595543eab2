#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodeReject(NlBuilder& b, const RejectExpr& e) {
  b.PutBe32(NFTA_REJECT_TYPE, e.type);
  b.PutU8(NFTA_REJECT_ICMP_CODE, e.code);
}

}  // namespace nft
}  // namespace kpn
