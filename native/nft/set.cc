#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

namespace {

void PutDesc(NlBuilder& b, const SetSpec& s) {
  if (s.sizeHint == 0 && s.concat.empty()) return;
  size_t d = b.BeginNest(NFTA_SET_DESC);
  if (s.sizeHint != 0) b.PutBe32(NFTA_SET_DESC_SIZE, s.sizeHint);
  if (!s.concat.empty()) {
    size_t c = b.BeginNest(NFTA_SET_DESC_CONCAT);
    for (uint8_t len : s.concat) {
      size_t el = b.BeginNest(NFTA_LIST_ELEM);
      b.PutBe32(NFTA_SET_FIELD_LEN, len);
      b.EndNest(el);
    }
    b.EndNest(c);
  }
  b.EndNest(d);
}

void PutNewSet(NlBuilder& b, const Op& op, long opIndex) {
  const SetSpec& s = op.setSpec;
  // The kernel requires NFTA_SET_ID on NEWSET; give id-less sets one from a range TypeScript
  // never uses (wire-format.md: TS ids are below kAutoSetIdBase).
  b.PutBe32(NFTA_SET_ID, op.setId != 0 ? op.setId : kAutoSetIdBase | uint32_t(opIndex));
  b.PutBe32(NFTA_SET_FLAGS, s.flags);
  b.PutBe32(NFTA_SET_KEY_TYPE, s.keyType);
  b.PutBe32(NFTA_SET_KEY_LEN, s.keyLen);
  if (s.flags & NFT_SET_MAP) {
    b.PutBe32(NFTA_SET_DATA_TYPE, s.dataType);
    if (s.dataLen != 0) b.PutBe32(NFTA_SET_DATA_LEN, s.dataLen);
  }
  if (s.timeoutMs != 0) b.PutBe64(NFTA_SET_TIMEOUT, s.timeoutMs);
  if (s.gcIntervalMs != 0) b.PutBe32(NFTA_SET_GC_INTERVAL, s.gcIntervalMs);
  PutDesc(b, s);
  if (!s.userdata.empty()) b.PutBytes(NFTA_SET_USERDATA, s.userdata.data(), s.userdata.size());
}

}  // namespace

void EncodeSetOp(NlBuilder& b, const Op& op, long opIndex, uint32_t seq, uint16_t flags) {
  size_t m;
  if (op.code == OpCode::kFlushSet) {
    m = BeginNftMsg(b, NFT_MSG_DELSETELEM, flags, seq, op.family);
    b.PutStr(NFTA_SET_ELEM_LIST_TABLE, op.table);
    b.PutStr(NFTA_SET_ELEM_LIST_SET, op.set);
    b.EndMsg(m);
    return;
  }
  bool add = op.code == OpCode::kAddSet;
  m = BeginNftMsg(b, add ? NFT_MSG_NEWSET : NFT_MSG_DELSET, flags, seq, op.family);
  b.PutStr(NFTA_SET_TABLE, op.table);
  b.PutStr(NFTA_SET_NAME, op.set);
  if (add) PutNewSet(b, op, opIndex);
  b.EndMsg(m);
}

}  // namespace nft
}  // namespace kpn
