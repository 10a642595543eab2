#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodeRuleOp(NlBuilder& b, const Op& op, uint32_t seq, uint16_t flags) {
  bool add = op.code == OpCode::kAddRule;
  // NLM_F_APPEND: new rules go to the end of the chain, in transaction order.
  size_t m = add ? BeginNftMsg(b, NFT_MSG_NEWRULE, flags | NLM_F_APPEND, seq, op.family)
                 : BeginNftMsg(b, NFT_MSG_DELRULE, flags, seq, op.family);
  b.PutStr(NFTA_RULE_TABLE, op.table);
  b.PutStr(NFTA_RULE_CHAIN, op.chain);
  if (!add) {
    b.PutBe64(NFTA_RULE_HANDLE, op.handle);
    b.EndMsg(m);
    return;
  }
  size_t list = b.BeginNest(NFTA_RULE_EXPRESSIONS);
  for (const Expr& e : op.exprs) EncodeExpr(b, e);
  b.EndNest(list);
  if (!op.userdata.empty()) b.PutBytes(NFTA_RULE_USERDATA, op.userdata.data(), op.userdata.size());
  b.EndMsg(m);
}

}  // namespace nft
}  // namespace kpn
