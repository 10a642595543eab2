#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

size_t BeginNftMsg(NlBuilder& b, uint8_t msg, uint16_t flags, uint32_t seq, uint8_t family) {
  uint16_t type = uint16_t((NFNL_SUBSYS_NFTABLES << 8) | msg);
  return b.BeginMsg(type, uint16_t(NLM_F_REQUEST | flags), seq, family, 0);
}

void PutDataValue(NlBuilder& b, uint16_t type, const Bytes& value) {
  size_t n = b.BeginNest(type);
  b.PutBytes(NFTA_DATA_VALUE, value.data(), value.size());
  b.EndNest(n);
}

void PutVerdictData(NlBuilder& b, uint16_t type, const Verdict& v) {
  size_t n = b.BeginNest(type);
  size_t vn = b.BeginNest(NFTA_DATA_VERDICT);
  b.PutBe32(NFTA_VERDICT_CODE, uint32_t(v.code));
  if (!v.chain.empty()) b.PutStr(NFTA_VERDICT_CHAIN, v.chain);
  b.EndNest(vn);
  b.EndNest(n);
}

}  // namespace nft
}  // namespace kpn
