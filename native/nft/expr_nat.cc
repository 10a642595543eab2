#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

// A zero register field means "absent" in the wire format (register 0 is never a NAT source).
void EncodeNat(NlBuilder& b, const NatExpr& e) {
  b.PutBe32(NFTA_NAT_TYPE, e.natType);
  b.PutBe32(NFTA_NAT_FAMILY, e.family);
  if (e.regAddrMin != 0) b.PutBe32(NFTA_NAT_REG_ADDR_MIN, e.regAddrMin);
  if (e.regAddrMax != 0) b.PutBe32(NFTA_NAT_REG_ADDR_MAX, e.regAddrMax);
  if (e.regProtoMin != 0) b.PutBe32(NFTA_NAT_REG_PROTO_MIN, e.regProtoMin);
  if (e.regProtoMax != 0) b.PutBe32(NFTA_NAT_REG_PROTO_MAX, e.regProtoMax);
  if (e.flags != 0) b.PutBe32(NFTA_NAT_FLAGS, e.flags);
}

void EncodeMasq(NlBuilder& b, const MasqExpr& e) {
  if (e.flags != 0) b.PutBe32(NFTA_MASQ_FLAGS, e.flags);
  if (e.regProtoMin != 0) b.PutBe32(NFTA_MASQ_REG_PROTO_MIN, e.regProtoMin);
  if (e.regProtoMax != 0) b.PutBe32(NFTA_MASQ_REG_PROTO_MAX, e.regProtoMax);
}

}  // namespace nft
}  // namespace kpn
