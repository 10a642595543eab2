#include "txn/element_list.h"

#include <linux/netfilter/nf_tables.h>

#include "txn/checks.h"
#include "txn/types.h"
#include "txn/wire_reader.h"

namespace kpn {

namespace {

constexpr uint32_t kElemFlagsMask = NFT_SET_ELEM_INTERVAL_END;

// One element, every field checked; the views point into r's buffer.
bool ReadElement(WireReader& r, ElementView* e) {
  if (!r.Blob("key", &e->key, 1, kDataMax)) return false;
  if (!r.Blob("keyEnd", &e->keyEnd, 0, kDataMax)) return false;
  if (!ReadFlags32(r, "elemFlags", &e->flags, kElemFlagsMask)) return false;
  uint8_t kind;
  if (!ReadU8Max(r, "dataKind", &kind, 2)) return false;
  e->dataKind = DataKind(kind);
  e->verdictCode = 0;
  e->verdictChain = {};
  e->data = {};
  if (e->dataKind == DataKind::kVerdict && !ReadVerdictView(r, &e->verdictCode, &e->verdictChain)) return false;
  if (e->dataKind == DataKind::kData && !r.Blob("data", &e->data, 1, kDataMax)) return false;
  return r.U64("timeoutMs", &e->timeoutMs);
}

void PutLe(std::vector<uint8_t>* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) out->push_back(uint8_t(v >> (8 * i)));
}

// u16 length then bytes; a length above u16 is cut to 0xffff bytes (and then refused by the check).
void PutBlob(std::vector<uint8_t>* out, const uint8_t* p, size_t n) {
  if (n > 0xffff) n = 0xffff;
  PutLe(out, n, 2);
  out->insert(out->end(), p, p + n);
}

void WriteElement(const Element& e, std::vector<uint8_t>* out) {
  PutBlob(out, e.key.data(), e.key.size());
  PutBlob(out, e.keyEnd.data(), e.keyEnd.size());
  PutLe(out, e.flags, 4);
  PutLe(out, uint8_t(e.dataKind), 1);
  if (e.dataKind == DataKind::kVerdict) {
    PutLe(out, uint32_t(e.verdict.code), 4);
    PutBlob(out, reinterpret_cast<const uint8_t*>(e.verdict.chain.data()), e.verdict.chain.size());
  }
  if (e.dataKind == DataKind::kData) PutBlob(out, e.data.data(), e.data.size());
  PutLe(out, e.timeoutMs, 8);
}

}  // namespace

bool ElementCursor::Next(ElementView* e) {
  if (pos_.index >= count_ || pos_.offset > len_) return false;
  WireReader r(data_ + pos_.offset, len_ - pos_.offset);
  if (!ReadElement(r, e)) return false;
  pos_.index++;
  pos_.offset += r.pos();
  return true;
}

bool ElementCursor::Skip(size_t n) {
  ElementView e;
  for (size_t i = 0; i < n; i++) {
    if (!Next(&e)) return false;
  }
  return true;
}

bool ElementList::Decode(WireReader& r, uint32_t count) {
  size_t start = r.pos();
  ElementView e;
  for (uint32_t i = 0; i < count; i++) {
    r.elem = i;
    if (!ReadElement(r, &e)) return false;
  }
  r.elem = -1;
  if (count_ == 0) {
    borrowed_ = r.data() + start;
    borrowedLen_ = r.pos() - start;
  } else {
    Own();
    owned_.insert(owned_.end(), r.data() + start, r.data() + r.pos());
  }
  count_ += count;
  return true;
}

void ElementList::Own() {
  if (!borrowed_) return;
  owned_.assign(borrowed_, borrowed_ + borrowedLen_);
  borrowed_ = nullptr;
  borrowedLen_ = 0;
}

bool ElementList::Append(const Element& e) {
  Own();
  size_t start = owned_.size();
  WriteElement(e, &owned_);
  WireReader r(owned_.data() + start, owned_.size() - start);
  ElementView check;
  if (!ReadElement(r, &check) || r.pos() != owned_.size() - start) {
    owned_.resize(start);
    return false;
  }
  count_++;
  return true;
}

}  // namespace kpn
