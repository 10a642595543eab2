#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodeCmp(NlBuilder& b, const CmpExpr& e) {
  b.PutBe32(NFTA_CMP_SREG, e.sreg);
  b.PutBe32(NFTA_CMP_OP, e.op);
  PutDataValue(b, NFTA_CMP_DATA, e.data);
}

}  // namespace nft
}  // namespace kpn
