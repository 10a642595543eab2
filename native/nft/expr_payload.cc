#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodePayload(NlBuilder& b, const PayloadExpr& e) {
  b.PutBe32(NFTA_PAYLOAD_DREG, e.dreg);
  b.PutBe32(NFTA_PAYLOAD_BASE, e.base);
  b.PutBe32(NFTA_PAYLOAD_OFFSET, e.offset);
  b.PutBe32(NFTA_PAYLOAD_LEN, e.len);
}

}  // namespace nft
}  // namespace kpn
