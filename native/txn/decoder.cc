#include "txn/decoder.h"

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <cstdio>

#include "txn/checks.h"
#include "txn/expr_decoder.h"
#include "txn/wire_reader.h"

namespace kpn {

namespace {

constexpr size_t kOpHeaderLen = 6;          // u8 opcode, u8 flags, u32 bodyLen
constexpr size_t kMinElementLen = 2 + 1 + 2 + 4 + 1 + 8;
constexpr size_t kUserdataMax = 256;
constexpr uint32_t kReserveOpsMax = 4096;
constexpr uint32_t kTableFlagsMask = 0x7;   // DORMANT | OWNER | PERSIST
constexpr uint32_t kSetFlagsMask = 0x1ff;   // NFT_SET_ANONYMOUS .. NFT_SET_EXPR

bool ReadFamily(WireReader& r, uint8_t* f) {
  if (!r.U8("family", f)) return false;
  if (*f != NFPROTO_IPV4 && *f != NFPROTO_IPV6 && *f != NFPROTO_INET) {
    return r.FailHere("family", "family " + std::to_string(*f) + " is not 2 (ip), 10 (ip6) or 1 (inet)");
  }
  return true;
}

bool ReadChainBase(WireReader& r, ChainBase* b) {
  if (!ReadU32Max(r, "hook", &b->hook, NF_INET_POST_ROUTING)) return false;
  if (!r.I32("priority", &b->priority)) return false;
  if (!ReadName(r, "type", &b->type)) return false;
  if (b->type != "filter" && b->type != "nat" && b->type != "route") {
    return r.FailHere("type", "chain type \"" + b->type + "\" is not filter, nat or route");
  }
  return ReadU8Max(r, "policy", &b->policy, 2);
}

bool ReadAddChain(WireReader& r, Op* op) {
  if (!ReadName(r, "chain", &op->chain)) return false;
  uint8_t isBase;
  if (!ReadU8Max(r, "isBase", &isBase, 1)) return false;
  op->isBase = isBase == 1;
  return !op->isBase || ReadChainBase(r, &op->base);
}

bool ReadAddRule(WireReader& r, Op* op) {
  if (!ReadName(r, "chain", &op->chain)) return false;
  if (!r.Blob("userdata", &op->userdata, 0, kUserdataMax)) return false;
  uint16_t n;
  if (!r.U16("exprCount", &n)) return false;
  if (n == 0) return r.FailHere("exprCount", "a rule needs at least one expression");
  op->exprs.reserve(n < r.remaining() ? n : r.remaining());
  for (uint16_t i = 0; i < n; i++) {
    r.expr = i;
    Expr e;
    if (!ReadExpr(r, &e)) return false;
    op->exprs.push_back(std::move(e));
  }
  r.expr = -1;
  return true;
}

bool ReadSetSpec(WireReader& r, SetSpec* s) {
  if (!ReadFlags32(r, "setFlags", &s->flags, kSetFlagsMask)) return false;
  if (!r.U32("keyType", &s->keyType)) return false;
  if (!r.U32("keyLen", &s->keyLen)) return false;
  if (s->keyLen < 1 || s->keyLen > kDataMax) return r.FailHere("keyLen", "must be 1..64");
  if (!r.U32("dataType", &s->dataType)) return false;
  if (!ReadU32Max(r, "dataLen", &s->dataLen, kDataMax)) return false;
  if (!r.U64("timeoutMs", &s->timeoutMs)) return false;
  if (!r.U32("gcIntervalMs", &s->gcIntervalMs)) return false;
  uint8_t n;
  if (!ReadU8Max(r, "concatCount", &n, 16)) return false;
  for (uint8_t i = 0; i < n; i++) {
    uint8_t len;
    if (!r.U8("concatFieldLen", &len)) return false;
    if (len < 1 || len > 16) return r.FailHere("concatFieldLen", "must be 1..16");
    s->concat.push_back(len);
  }
  if (!r.U32("sizeHint", &s->sizeHint)) return false;
  return r.Blob("userdata", &s->userdata, 0, kUserdataMax);
}

bool ReadElements(WireReader& r, Op* op) {
  if (!ReadName(r, "set", &op->set)) return false;
  if (!ReadSetId(r, "setId", &op->setId)) return false;
  uint32_t n;
  if (!r.U32("count", &n)) return false;
  if (n == 0) return r.FailHere("count", "an element op needs at least one element");
  if (n > r.remaining() / kMinElementLen) {
    return r.FailHere("count", std::to_string(n) + " elements cannot fit in the " +
                                   std::to_string(r.remaining()) + " bytes left in the op body");
  }
  return op->elements.Decode(r, n);
}

bool ReadDelRule(WireReader& r, Op* op) {
  if (!ReadName(r, "chain", &op->chain)) return false;
  if (!r.U64("handle", &op->handle)) return false;
  if (op->handle == 0) return r.FailHere("handle", "rule handle 0 does not exist");
  return true;
}

bool ReadOpBody(WireReader& r, Op* op) {
  if (!ReadFamily(r, &op->family)) return false;
  if (!ReadName(r, "table", &op->table)) return false;
  switch (op->code) {
    case OpCode::kAddTable: return ReadFlags32(r, "tableFlags", &op->tableFlags, kTableFlagsMask);
    case OpCode::kDelTable:
    case OpCode::kFlushTable: return true;
    case OpCode::kAddChain: return ReadAddChain(r, op);
    case OpCode::kFlushChain:
    case OpCode::kDelChain: return ReadName(r, "chain", &op->chain);
    case OpCode::kAddRule: return ReadAddRule(r, op);
    case OpCode::kAddSet:
      return ReadName(r, "set", &op->set) && ReadSetId(r, "setId", &op->setId) && ReadSetSpec(r, &op->setSpec);
    case OpCode::kDelSet:
    case OpCode::kFlushSet: return ReadName(r, "set", &op->set);
    case OpCode::kAddElems:
    case OpCode::kDelElems: return ReadElements(r, op);
    case OpCode::kDelRule: return ReadDelRule(r, op);
  }
  return r.FailHere("opcode", "unreachable");
}

bool ReadOp(WireReader& r, Op* op) {
  uint8_t code, flags;
  uint32_t bodyLen;
  if (!r.U8("opcode", &code)) return false;
  if (code < 1 || code > kOpCodeMax) return r.FailHere("opcode", "unknown opcode " + std::to_string(code));
  op->code = OpCode(code);
  if (!r.U8("flags", &flags)) return false;
  if (flags & ~kOpFlagCreate) return r.FailHere("flags", "unknown op flag bits " + std::to_string(flags));
  op->flags = flags;
  if (!r.U32("bodyLen", &bodyLen)) return false;
  if (bodyLen > r.remaining()) {
    return r.FailHere("bodyLen", "body length " + std::to_string(bodyLen) + " exceeds the " +
                                     std::to_string(r.remaining()) + " bytes left in the buffer");
  }
  size_t end = r.pos() + bodyLen;
  size_t outer = r.limit();
  r.set_limit(end);
  if (!ReadOpBody(r, op)) return false;
  if (r.pos() != end) {
    return r.Fail(r.pos(), "body", std::to_string(end - r.pos()) + " unread bytes at the end of the op body");
  }
  r.set_limit(outer);
  return true;
}

bool ReadHeader(WireReader& r, uint32_t* opCount) {
  uint32_t magic;
  uint16_t version, reserved;
  if (!r.U32("magic", &magic)) return false;
  if (magic != kTxnMagic) return r.FailHere("magic", "not a transaction buffer (bad magic)");
  if (!r.U16("version", &version)) return false;
  if (version != kTxnVersion) return r.FailHere("version", "unsupported version " + std::to_string(version));
  if (!r.U16("reserved", &reserved)) return false;
  if (reserved != 0) return r.FailHere("reserved", "must be 0");
  if (!r.U32("opCount", opCount)) return false;
  if (*opCount > r.remaining() / kOpHeaderLen) {
    return r.FailHere("opCount", std::to_string(*opCount) + " ops cannot fit in the " +
                                     std::to_string(r.remaining()) + " bytes left");
  }
  return true;
}

}  // namespace

bool DecodeTransaction(const uint8_t* data, size_t len, Transaction* out, DecodeError* err) {
  WireReader r(data, len);
  uint32_t n;
  bool ok = ReadHeader(r, &n);
  // Grow as ops prove valid: a lying opCount must not cost memory up front.
  if (ok) out->opOffsets.reserve(n < kReserveOpsMax ? n : kReserveOpsMax);
  Op scratch;
  for (uint32_t i = 0; ok && i < n; i++) {
    r.op = i;
    out->opOffsets.push_back(r.pos());
    scratch = Op();
    ok = ReadOp(r, &scratch);
  }
  if (ok && r.pos() != len) {
    r.op = -1;
    ok = r.Fail(r.pos(), "trailer", std::to_string(len - r.pos()) + " trailing bytes after the last op");
  }
  if (!ok) {
    *err = r.error;
    out->opOffsets.clear();
    out->opOffsets.shrink_to_fit();
    return false;
  }
  out->ops.clear();
  out->wire = data;
  out->wireBytes = len;
  return true;
}

const Op* OpAt(const Transaction& txn, size_t i, Op* scratch) {
  if (!txn.wire) return i < txn.ops.size() ? &txn.ops[i] : nullptr;
  if (i >= txn.opOffsets.size()) return nullptr;
  WireReader r(txn.wire, txn.wireBytes);
  r.Seek(txn.opOffsets[i]);
  r.op = long(i);
  *scratch = Op();
  return ReadOp(r, scratch) ? scratch : nullptr;
}

}  // namespace kpn
