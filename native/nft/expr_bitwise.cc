#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodeBitwise(NlBuilder& b, const BitwiseExpr& e) {
  b.PutBe32(NFTA_BITWISE_SREG, e.sreg);
  b.PutBe32(NFTA_BITWISE_DREG, e.dreg);
  b.PutBe32(NFTA_BITWISE_LEN, e.len);
  PutDataValue(b, NFTA_BITWISE_MASK, e.mask);
  PutDataValue(b, NFTA_BITWISE_XOR, e.xorv);
}

}  // namespace nft
}  // namespace kpn
