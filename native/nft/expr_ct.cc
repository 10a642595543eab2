#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodeCt(NlBuilder& b, const CtExpr& e) {
  b.PutBe32(NFTA_CT_KEY, e.key);
  b.PutBe32(e.dir == 0 ? NFTA_CT_DREG : NFTA_CT_SREG, e.reg);
  if (e.ctDir != 255) b.PutU8(NFTA_CT_DIRECTION, e.ctDir);
}

}  // namespace nft
}  // namespace kpn
