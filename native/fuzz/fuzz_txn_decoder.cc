// libFuzzer entry: the transaction decoder, then (for buffers it accepts) the element lists'
// invariants and the nftables batch encoder. All pure code: no sockets, no N-API.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include <linux/netlink.h>

#include "netlink/attr.h"
#include "nft/batch.h"
#include "txn/decoder.h"

namespace {

// A decoded element list reads back to its count, and each element, appended again as plain
// data, is accepted and takes the same bytes (the list's two ways in agree).
void CheckElementList(const kpn::ElementList& list) {
  kpn::ElementCursor cursor = list.Walk();
  kpn::ElementView v;
  kpn::ElementList again;
  while (cursor.Next(&v)) {
    kpn::Element e;
    e.key.assign(v.key.data, v.key.data + v.key.size);
    e.keyEnd.assign(v.keyEnd.data, v.keyEnd.data + v.keyEnd.size);
    e.flags = v.flags;
    e.dataKind = v.dataKind;
    e.verdict = kpn::Verdict{v.verdictCode, std::string(v.verdictChain)};
    e.data.assign(v.data.data, v.data.data + v.data.size);
    e.timeoutMs = v.timeoutMs;
    if (!again.Append(e)) __builtin_trap();
  }
  if (cursor.pos().index != list.size() || cursor.pos().offset != list.wireBytes()) __builtin_trap();
  if (again.size() != list.size() || again.wireBytes() != list.wireBytes()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kpn::Transaction txn;
  kpn::DecodeError err;
  if (!kpn::DecodeTransaction(data, size, &txn, &err)) {
    volatile size_t n = err.ToString().size();  // the message must always be formable
    (void)n;
    return 0;
  }
  kpn::Op scratch;
  for (size_t i = 0; i < txn.size(); i++) {
    const kpn::Op* op = kpn::OpAt(txn, i, &scratch);
    if (!op) __builtin_trap();  // an op the decoder accepted reads again
    CheckElementList(op->elements);
  }
  kpn::nft::EncodedBatch batch;
  long failedOp = -1;
  if (!kpn::nft::EncodeBatch(txn, &batch, &failedOp)) return 0;
  // Walk every message's attributes as the error path does, at an offset taken from the input.
  size_t probe = size > 0 ? data[size - 1] * 4u : 0;
  for (size_t off : batch.seqToOffset) {
    nlmsghdr h;
    std::memcpy(&h, batch.bytes.data() + off, sizeof h);
    volatile size_t steps = kpn::AttrPathAt(batch.bytes.data() + off, h.nlmsg_len, 20, probe).size();
    (void)steps;
  }
  kpn::nft::Rebase(&batch.bytes, 1000);
  return 0;
}
