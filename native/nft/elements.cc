#include <linux/netfilter/nf_tables.h>

#include "nft/encode.h"

namespace kpn {
namespace nft {

namespace {

void PutElement(NlBuilder& b, const Element& e) {
  size_t el = b.BeginNest(NFTA_LIST_ELEM);
  PutDataValue(b, NFTA_SET_ELEM_KEY, e.key);
  if (!e.keyEnd.empty()) PutDataValue(b, NFTA_SET_ELEM_KEY_END, e.keyEnd);
  if (e.flags != 0) b.PutBe32(NFTA_SET_ELEM_FLAGS, e.flags);
  if (e.dataKind == DataKind::kVerdict) PutVerdictData(b, NFTA_SET_ELEM_DATA, e.verdict);
  if (e.dataKind == DataKind::kData) PutDataValue(b, NFTA_SET_ELEM_DATA, e.data);
  if (e.timeoutMs != 0) b.PutBe64(NFTA_SET_ELEM_TIMEOUT, e.timeoutMs);
  b.EndNest(el);
}

size_t DataValueSize(size_t len) { return NlAttrSpace(NlAttrSpace(len)); }

}  // namespace

size_t ElementAttrSize(const Element& e) {
  size_t n = DataValueSize(e.key.size());
  if (!e.keyEnd.empty()) n += DataValueSize(e.keyEnd.size());
  if (e.flags != 0) n += NlAttrSpace(4);
  if (e.dataKind == DataKind::kVerdict) {
    size_t chain = e.verdict.chain.empty() ? 0 : NlAttrSpace(e.verdict.chain.size() + 1);
    n += NlAttrSpace(NlAttrSpace(NlAttrSpace(4) + chain));
  }
  if (e.dataKind == DataKind::kData) n += DataValueSize(e.data.size());
  if (e.timeoutMs != 0) n += NlAttrSpace(8);
  return NlAttrSpace(n);
}

void EncodeElemsMsg(NlBuilder& b, const Op& op, size_t first, size_t last, uint32_t seq, uint16_t flags) {
  bool add = op.code == OpCode::kAddElems;
  size_t m = BeginNftMsg(b, add ? NFT_MSG_NEWSETELEM : NFT_MSG_DELSETELEM, flags, seq, op.family);
  b.PutStr(NFTA_SET_ELEM_LIST_TABLE, op.table);
  b.PutStr(NFTA_SET_ELEM_LIST_SET, op.set);
  if (op.setId != 0) b.PutBe32(NFTA_SET_ELEM_LIST_SET_ID, op.setId);
  size_t list = b.BeginNest(NFTA_SET_ELEM_LIST_ELEMENTS);
  for (size_t i = first; i < last; i++) PutElement(b, op.elements[i]);
  b.EndNest(list);
  b.EndMsg(m);
}

}  // namespace nft
}  // namespace kpn
