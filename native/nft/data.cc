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

void PutDataValue(NlBuilder& b, uint16_t type, ByteView value) {
  size_t n = b.BeginNest(type);
  b.PutBytes(NFTA_DATA_VALUE, value.data, value.size);
  b.EndNest(n);
}

void PutDataValue(NlBuilder& b, uint16_t type, const Bytes& value) {
  PutDataValue(b, type, ByteView{value.data(), value.size()});
}

void PutVerdictData(NlBuilder& b, uint16_t type, int32_t code, std::string_view chain) {
  size_t n = b.BeginNest(type);
  size_t vn = b.BeginNest(NFTA_DATA_VERDICT);
  b.PutBe32(NFTA_VERDICT_CODE, uint32_t(code));
  if (!chain.empty()) b.PutStr(NFTA_VERDICT_CHAIN, chain);
  b.EndNest(vn);
  b.EndNest(n);
}

void PutVerdictData(NlBuilder& b, uint16_t type, const Verdict& v) { PutVerdictData(b, type, v.code, v.chain); }

}  // namespace nft
}  // namespace kpn
