#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

namespace {

void PutBase(NlBuilder& b, const ChainBase& base) {
  size_t h = b.BeginNest(NFTA_CHAIN_HOOK);
  b.PutBe32(NFTA_HOOK_HOOKNUM, base.hook);
  b.PutBe32(NFTA_HOOK_PRIORITY, uint32_t(base.priority));
  b.EndNest(h);
  b.PutStr(NFTA_CHAIN_TYPE, base.type);
  if (base.policy != 0) b.PutBe32(NFTA_CHAIN_POLICY, base.policy == 1 ? NF_ACCEPT : NF_DROP);
}

}  // namespace

void EncodeChainOp(NlBuilder& b, const Op& op, uint32_t seq, uint16_t flags) {
  size_t m;
  if (op.code == OpCode::kFlushChain) {
    m = BeginNftMsg(b, NFT_MSG_DELRULE, flags, seq, op.family);
    b.PutStr(NFTA_RULE_TABLE, op.table);
    b.PutStr(NFTA_RULE_CHAIN, op.chain);
    b.EndMsg(m);
    return;
  }
  bool add = op.code == OpCode::kAddChain;
  m = BeginNftMsg(b, add ? NFT_MSG_NEWCHAIN : NFT_MSG_DELCHAIN, flags, seq, op.family);
  b.PutStr(NFTA_CHAIN_TABLE, op.table);
  b.PutStr(NFTA_CHAIN_NAME, op.chain);
  if (add && op.isBase) PutBase(b, op.base);
  b.EndMsg(m);
}

}  // namespace nft
}  // namespace kpn
