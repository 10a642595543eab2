#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodeFib(NlBuilder& b, const FibExpr& e) {
  b.PutBe32(NFTA_FIB_DREG, e.dreg);
  b.PutBe32(NFTA_FIB_RESULT, e.result);
  b.PutBe32(NFTA_FIB_FLAGS, e.flags);
}

}  // namespace nft
}  // namespace kpn
