#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

namespace {

size_t DataValueSize(size_t len) { return NlAttrSpace(NlAttrSpace(len)); }

}  // namespace

void PutElement(NlBuilder& b, const ElementView& e) {
  size_t el = b.BeginNest(NFTA_LIST_ELEM);
  PutDataValue(b, NFTA_SET_ELEM_KEY, e.key);
  if (!e.keyEnd.empty()) PutDataValue(b, NFTA_SET_ELEM_KEY_END, e.keyEnd);
  if (e.flags != 0) b.PutBe32(NFTA_SET_ELEM_FLAGS, e.flags);
  if (e.dataKind == DataKind::kVerdict) PutVerdictData(b, NFTA_SET_ELEM_DATA, e.verdictCode, e.verdictChain);
  if (e.dataKind == DataKind::kData) PutDataValue(b, NFTA_SET_ELEM_DATA, e.data);
  if (e.timeoutMs != 0) b.PutBe64(NFTA_SET_ELEM_TIMEOUT, e.timeoutMs);
  b.EndNest(el);
}

size_t ElementAttrSize(const ElementView& e) {
  size_t n = DataValueSize(e.key.size);
  if (!e.keyEnd.empty()) n += DataValueSize(e.keyEnd.size);
  if (e.flags != 0) n += NlAttrSpace(4);
  if (e.dataKind == DataKind::kVerdict) {
    size_t chain = e.verdictChain.empty() ? 0 : NlAttrSpace(e.verdictChain.size() + 1);
    n += NlAttrSpace(NlAttrSpace(NlAttrSpace(4) + chain));
  }
  if (e.dataKind == DataKind::kData) n += DataValueSize(e.data.size);
  if (e.timeoutMs != 0) n += NlAttrSpace(8);
  return NlAttrSpace(n);
}

ElemsMsg BeginElemsMsg(NlBuilder& b, const Op& op, uint32_t seq, uint16_t flags) {
  bool add = op.code == OpCode::kAddElems;
  size_t m = BeginNftMsg(b, add ? NFT_MSG_NEWSETELEM : NFT_MSG_DELSETELEM, flags, seq, op.family);
  b.PutStr(NFTA_SET_ELEM_LIST_TABLE, op.table);
  b.PutStr(NFTA_SET_ELEM_LIST_SET, op.set);
  if (op.setId != 0) b.PutBe32(NFTA_SET_ELEM_LIST_SET_ID, op.setId);
  return ElemsMsg{m, b.BeginNest(NFTA_SET_ELEM_LIST_ELEMENTS)};
}

void EndElemsMsg(NlBuilder& b, const ElemsMsg& m) {
  b.EndNest(m.list);
  b.EndMsg(m.msg);
}

}  // namespace nft
}  // namespace kpn
