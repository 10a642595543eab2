#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodeNumgen(NlBuilder& b, const NumgenExpr& e) {
  b.PutBe32(NFTA_NG_DREG, e.dreg);
  b.PutBe32(NFTA_NG_MODULUS, e.mod);
  b.PutBe32(NFTA_NG_TYPE, e.type);
  if (e.offset != 0) b.PutBe32(NFTA_NG_OFFSET, e.offset);
}

}  // namespace nft
}  // namespace kpn
