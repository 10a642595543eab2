#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

void EncodeTableOp(NlBuilder& b, const Op& op, uint32_t seq, uint16_t flags) {
  size_t m;
  switch (op.code) {
    case OpCode::kAddTable:
      m = BeginNftMsg(b, NFT_MSG_NEWTABLE, flags, seq, op.family);
      b.PutStr(NFTA_TABLE_NAME, op.table);
      b.PutBe32(NFTA_TABLE_FLAGS, op.tableFlags);
      break;
    case OpCode::kDelTable:
      m = BeginNftMsg(b, NFT_MSG_DELTABLE, flags, seq, op.family);
      b.PutStr(NFTA_TABLE_NAME, op.table);
      break;
    default:  // kFlushTable: delete every rule of the table, like `nft flush table`
      m = BeginNftMsg(b, NFT_MSG_DELRULE, flags, seq, op.family);
      b.PutStr(NFTA_RULE_TABLE, op.table);
      break;
  }
  b.EndMsg(m);
}

}  // namespace nft
}  // namespace kpn
