#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodeLookup(NlBuilder& b, const LookupExpr& e) {
  b.PutStr(NFTA_LOOKUP_SET, e.set);
  if (e.setId != 0) b.PutBe32(NFTA_LOOKUP_SET_ID, e.setId);
  b.PutBe32(NFTA_LOOKUP_SREG, e.sreg);
  if (e.hasDreg) b.PutBe32(NFTA_LOOKUP_DREG, e.dreg);
  if (e.flags != 0) b.PutBe32(NFTA_LOOKUP_FLAGS, e.flags);
}

}  // namespace nft
}  // namespace kpn
