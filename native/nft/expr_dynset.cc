#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodeDynset(NlBuilder& b, const DynsetExpr& e) {
  b.PutStr(NFTA_DYNSET_SET_NAME, e.set);
  if (e.setId != 0) b.PutBe32(NFTA_DYNSET_SET_ID, e.setId);
  b.PutBe32(NFTA_DYNSET_OP, e.op);
  b.PutBe32(NFTA_DYNSET_SREG_KEY, e.sregKey);
  if (e.sregData != 0) b.PutBe32(NFTA_DYNSET_SREG_DATA, e.sregData);
  if (e.timeoutMs != 0) b.PutBe64(NFTA_DYNSET_TIMEOUT, e.timeoutMs);
  if (e.flags != 0) b.PutBe32(NFTA_DYNSET_FLAGS, e.flags);
}

}  // namespace nft
}  // namespace kpn
