#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodeMeta(NlBuilder& b, const MetaExpr& e) {
  b.PutBe32(NFTA_META_KEY, e.key);
  b.PutBe32(e.dir == 0 ? NFTA_META_DREG : NFTA_META_SREG, e.reg);
}

}  // namespace nft
}  // namespace kpn
