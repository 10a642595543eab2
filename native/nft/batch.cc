#include "nft/batch.h"

#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <arpa/inet.h>
#include <cstring>

#include "netlink/builder.h"
#include "nft/encode.h"
#include "txn/decoder.h"

namespace kpn {
namespace nft {

namespace {

// Keeps NFTA_SET_ELEM_LIST_ELEMENTS (u16 nla_len) well under 64 KiB with room for the header.
constexpr size_t kElemNestBudget = 60000;

// Records the next message's op index and offset (the builder is 4-byte aligned between
// messages, so b.size() is where it starts) and returns its relative seq.
uint32_t NoteMessage(const NlBuilder& b, long opIndex, EncodedBatch* out, ElementPos firstElem = {}) {
  out->seqToOp.push_back(opIndex);
  out->seqToOffset.push_back(b.size());
  out->seqToFirstElem.push_back(firstElem);
  return uint32_t(out->seqToOp.size() - 1);
}

uint16_t OpFlags(const Op& op) {
  bool adds = op.code == OpCode::kAddTable || op.code == OpCode::kAddChain ||
              op.code == OpCode::kAddRule || op.code == OpCode::kAddSet || op.code == OpCode::kAddElems;
  uint16_t f = adds ? NLM_F_CREATE : 0;
  if (op.flags & kOpFlagCreate) f |= NLM_F_EXCL;
  return f;
}

// One pass over the op's elements: a message takes elements while their attributes fit
// kElemNestBudget (at least one each), then the next message starts. False if the list could not
// be read to its end.
bool EncodeElemOp(NlBuilder& b, const Op& op, long opIndex, uint16_t flags, EncodedBatch* out) {
  ElementCursor cursor = op.elements.Walk();
  ElementPos at = cursor.pos();
  ElementView e;
  ElemsMsg msg{};
  bool open = false;
  size_t bytes = 0;
  while (cursor.Next(&e)) {
    size_t sz = ElementAttrSize(e);
    if (open && bytes + sz > kElemNestBudget) {
      EndElemsMsg(b, msg);
      open = false;
    }
    if (!open) {
      msg = BeginElemsMsg(b, op, NoteMessage(b, opIndex, out, at), flags);
      open = true;
      bytes = 0;
    }
    PutElement(b, e);
    bytes += sz;
    at = cursor.pos();
  }
  if (open) EndElemsMsg(b, msg);
  return at.index == op.elements.size();
}

// False when the op could not be encoded (see EncodeBatch).
bool EncodeOp(NlBuilder& b, const Op& op, long opIndex, uint16_t flags, EncodedBatch* out) {
  if (op.code == OpCode::kAddElems || op.code == OpCode::kDelElems) {
    return EncodeElemOp(b, op, opIndex, flags, out) && b.ok();
  }
  uint32_t seq = NoteMessage(b, opIndex, out);
  switch (op.code) {
    case OpCode::kAddTable: case OpCode::kDelTable: case OpCode::kFlushTable:
      EncodeTableOp(b, op, seq, flags); break;
    case OpCode::kAddChain: case OpCode::kDelChain: case OpCode::kFlushChain:
      EncodeChainOp(b, op, seq, flags); break;
    case OpCode::kAddRule: case OpCode::kDelRule:
      EncodeRuleOp(b, op, seq, flags); break;
    default:
      EncodeSetOp(b, op, opIndex, seq, flags); break;
  }
  return b.ok();
}

void PutBatchMarker(NlBuilder& b, uint16_t type, EncodedBatch* out) {
  uint32_t seq = NoteMessage(b, kBatchOpIndex, out);
  size_t m = b.BeginMsg(type, NLM_F_REQUEST, seq, AF_UNSPEC, htons(NFNL_SUBSYS_NFTABLES));
  b.EndMsg(m);
}

// Sets NLM_F_ACK on the message at byte offset `off`.
void SetAck(std::vector<uint8_t>& bytes, size_t off) {
  nlmsghdr h;
  std::memcpy(&h, bytes.data() + off, sizeof h);
  h.nlmsg_flags |= NLM_F_ACK;
  std::memcpy(bytes.data() + off, &h, sizeof h);
}

// The batch is larger than the transaction buffer: ~1.13x for the proxier bench's 44k full sync
// (elements dominate and grow little), 1.35x for the scale bench's mixed cluster (62.3 MB from 46.3
// MB: rules grow 3-4x, an expression's 14 wire bytes become ~50 of nested attributes). Reserving
// room up front spares the buffer's doublings, the last of which holds the old and the new copy at
// once (a 1.25x guess cost the 44k scale commit ~50 MB more at its peak). Reserved pages that are
// never written cost no RSS (the block is mapped, not touched), so the guess is generous: a short
// one only means doubling from there, as without one.
size_t BatchSizeHint(const Transaction& txn) { return txn.wireBytes * 2 + 4096; }

}  // namespace

bool EncodeBatch(const Transaction& txn, EncodedBatch* out, long* failedOp) {
  NlBuilder b;
  b.Reserve(BatchSizeHint(txn));
  PutBatchMarker(b, NFNL_MSG_BATCH_BEGIN, out);
  // One op at a time: a decoded transaction's op exists as an object only while it is encoded.
  Op scratch;
  for (size_t i = 0; i < txn.size(); i++) {
    const Op* op = OpAt(txn, i, &scratch);
    if (!op || !EncodeOp(b, *op, long(i), OpFlags(*op), out)) {
      *failedOp = long(i);
      return false;
    }
  }
  out->opMessages = uint32_t(out->seqToOp.size() - 1);
  out->ackedSeq = uint32_t(out->seqToOp.size() - 1);
  // Only the very last message asks for an ack: its reply marks the end of the batch's replies.
  if (!txn.empty()) SetAck(b.mutable_data(), out->seqToOffset.back());
  PutBatchMarker(b, NFNL_MSG_BATCH_END, out);
  out->bytes = std::move(b.mutable_data());
  return true;
}

void Rebase(std::vector<uint8_t>* bytes, uint32_t base) {
  size_t off = 0;
  while (bytes->size() - off >= NLMSG_HDRLEN) {
    nlmsghdr h;
    std::memcpy(&h, bytes->data() + off, sizeof h);
    h.nlmsg_seq += base;
    std::memcpy(bytes->data() + off, &h, sizeof h);
    off += NLMSG_ALIGN(h.nlmsg_len);
  }
}

}  // namespace nft
}  // namespace kpn
