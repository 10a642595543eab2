#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodeImmediate(NlBuilder& b, const ImmediateExpr& e) {
  b.PutBe32(NFTA_IMMEDIATE_DREG, e.dreg);
  if (e.dreg == NFT_REG_VERDICT) {
    PutVerdictData(b, NFTA_IMMEDIATE_DATA, e.verdict);
  } else {
    PutDataValue(b, NFTA_IMMEDIATE_DATA, e.data);
  }
}

}  // namespace nft
}  // namespace kpn
