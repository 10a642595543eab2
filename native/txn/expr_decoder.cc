#include "txn/expr_decoder.h"

#include <linux/netfilter.h>
#include <linux/netfilter/nf_nat.h>
#include <linux/netfilter/nf_tables.h>

#include "txn/checks.h"

namespace kpn {

namespace {

constexpr uint32_t kMetaKeyMax = 64;  // enum nft_meta_keys has ~40 entries; room for new ones
constexpr uint32_t kCtKeyMax = __NFT_CT_MAX - 1;
constexpr uint32_t kFibFlagsMask = 0x7f;
constexpr uint32_t kDynsetFlagsMask = NFT_DYNSET_F_INV;

bool IsKnownVerdict(int32_t c) {
  return c == NF_ACCEPT || c == NF_DROP || c == NFT_CONTINUE || c == NFT_BREAK ||
         c == NFT_JUMP || c == NFT_GOTO || c == NFT_RETURN;
}

bool ReadPayload(WireReader& r, PayloadExpr* e) {
  if (!ReadU8Max(r, "base", &e->base, 3)) return false;
  if (!r.U32("offset", &e->offset)) return false;
  if (!r.U32("len", &e->len)) return false;
  if (e->len < 1 || e->len > 16) return r.FailHere("len", "payload length must be 1..16");
  return ReadReg(r, "dreg", &e->dreg);
}

bool ReadMeta(WireReader& r, MetaExpr* e) {
  return ReadU8Max(r, "dir", &e->dir, 1) && ReadU32Max(r, "key", &e->key, kMetaKeyMax) &&
         ReadReg(r, "reg", &e->reg);
}

bool ReadCmp(WireReader& r, CmpExpr* e) {
  return ReadReg(r, "sreg", &e->sreg) && ReadU32Max(r, "op", &e->op, NFT_CMP_GTE) &&
         r.Blob("data", &e->data, 1, kDataMax);
}

bool ReadBitwise(WireReader& r, BitwiseExpr* e) {
  if (!ReadReg(r, "sreg", &e->sreg) || !ReadReg(r, "dreg", &e->dreg)) return false;
  if (!r.U32("len", &e->len)) return false;
  if (e->len < 1 || e->len > kDataMax) return r.FailHere("len", "bitwise length must be 1..64");
  if (!r.Blob("mask", &e->mask, e->len, e->len)) return false;
  return r.Blob("xor", &e->xorv, e->len, e->len);
}

bool ReadLookup(WireReader& r, LookupExpr* e) {
  uint8_t hasDreg;
  if (!ReadReg(r, "sreg", &e->sreg) || !ReadName(r, "set", &e->set)) return false;
  if (!ReadSetId(r, "setId", &e->setId) || !ReadU8Max(r, "hasDreg", &hasDreg, 1)) return false;
  e->hasDreg = hasDreg == 1;
  return ReadReg(r, "dreg", &e->dreg) && ReadFlags32(r, "flags", &e->flags, NFT_LOOKUP_F_INV);
}

bool ReadImmediate(WireReader& r, ImmediateExpr* e) {
  if (!ReadReg(r, "dreg", &e->dreg)) return false;
  if (e->dreg == NFT_REG_VERDICT) return ReadVerdict(r, &e->verdict);
  return r.Blob("data", &e->data, 1, kDataMax);
}

bool ReadNat(WireReader& r, NatExpr* e) {
  if (!ReadU32Max(r, "natType", &e->natType, NFT_NAT_DNAT)) return false;
  if (!r.U32("family", &e->family)) return false;
  if (e->family != NFPROTO_IPV4 && e->family != NFPROTO_IPV6) {
    return r.FailHere("family", "nat family must be 2 (ip) or 10 (ip6)");
  }
  return ReadOptReg(r, "regAddrMin", &e->regAddrMin) && ReadOptReg(r, "regAddrMax", &e->regAddrMax) &&
         ReadOptReg(r, "regProtoMin", &e->regProtoMin) && ReadOptReg(r, "regProtoMax", &e->regProtoMax) &&
         ReadFlags32(r, "flags", &e->flags, NF_NAT_RANGE_MASK);
}

bool ReadMasq(WireReader& r, MasqExpr* e) {
  return ReadFlags32(r, "flags", &e->flags, NF_NAT_RANGE_MASK) &&
         ReadOptReg(r, "regProtoMin", &e->regProtoMin) && ReadOptReg(r, "regProtoMax", &e->regProtoMax);
}

bool ReadReject(WireReader& r, RejectExpr* e) {
  return ReadU32Max(r, "type", &e->type, NFT_REJECT_ICMPX_UNREACH) && r.U8("code", &e->code);
}

bool ReadNumgen(WireReader& r, NumgenExpr* e) {
  if (!ReadReg(r, "dreg", &e->dreg) || !r.U32("mod", &e->mod)) return false;
  if (e->mod < 1) return r.FailHere("mod", "modulus must be at least 1");
  return ReadU32Max(r, "type", &e->type, NFT_NG_RANDOM) && r.U32("offset", &e->offset);
}

bool ReadCt(WireReader& r, CtExpr* e) {
  if (!ReadU8Max(r, "dir", &e->dir, 1) || !ReadU32Max(r, "key", &e->key, kCtKeyMax)) return false;
  if (!r.U8("ctDir", &e->ctDir)) return false;
  if (e->ctDir > 1 && e->ctDir != 255) return r.FailHere("ctDir", "must be 0 (original), 1 (reply) or 255 (none)");
  return ReadReg(r, "reg", &e->reg);
}

bool ReadFib(WireReader& r, FibExpr* e) {
  return ReadReg(r, "dreg", &e->dreg) && ReadU32Max(r, "result", &e->result, NFT_FIB_RESULT_MAX) &&
         ReadFlags32(r, "flags", &e->flags, kFibFlagsMask);
}

bool ReadDynset(WireReader& r, DynsetExpr* e) {
  return ReadU32Max(r, "op", &e->op, NFT_DYNSET_OP_DELETE) && ReadName(r, "set", &e->set) &&
         ReadSetId(r, "setId", &e->setId) && ReadReg(r, "sregKey", &e->sregKey) &&
         ReadOptReg(r, "sregData", &e->sregData) && r.U64("timeoutMs", &e->timeoutMs) &&
         ReadFlags32(r, "flags", &e->flags, kDynsetFlagsMask);
}

template <typename T, typename F>
bool ReadAs(WireReader& r, Expr* out, F fn) {
  T e{};
  if (!fn(r, &e)) return false;
  *out = std::move(e);
  return true;
}


}  // namespace

bool ReadVerdictView(WireReader& r, int32_t* code, std::string_view* chain) {
  if (!r.I32("verdictCode", code)) return false;
  if (!IsKnownVerdict(*code)) {
    return r.FailHere("verdictCode", "unknown verdict code " + std::to_string(*code));
  }
  if (!r.Str("verdictChain", chain, 0, kNameMax)) return false;
  bool needsChain = *code == NFT_JUMP || *code == NFT_GOTO;
  if (needsChain && chain->empty()) return r.FailHere("verdictChain", "jump/goto needs a chain name");
  if (!needsChain && !chain->empty()) return r.FailHere("verdictChain", "only jump/goto take a chain name");
  return true;
}

bool ReadVerdict(WireReader& r, Verdict* v) {
  std::string_view chain;
  if (!ReadVerdictView(r, &v->code, &chain)) return false;
  v->chain.assign(chain.data(), chain.size());
  return true;
}

bool ReadExpr(WireReader& r, Expr* out) {
  uint8_t type;
  if (!r.U8("exprType", &type)) return false;
  switch (type) {
    case 1: return ReadAs<PayloadExpr>(r, out, ReadPayload);
    case 2: return ReadAs<MetaExpr>(r, out, ReadMeta);
    case 3: return ReadAs<CmpExpr>(r, out, ReadCmp);
    case 4: return ReadAs<BitwiseExpr>(r, out, ReadBitwise);
    case 5: return ReadAs<LookupExpr>(r, out, ReadLookup);
    case 6: return ReadAs<ImmediateExpr>(r, out, ReadImmediate);
    case 7: return ReadAs<NatExpr>(r, out, ReadNat);
    case 8: return ReadAs<MasqExpr>(r, out, ReadMasq);
    case 9: return ReadAs<RejectExpr>(r, out, ReadReject);
    case 10: return ReadAs<NumgenExpr>(r, out, ReadNumgen);
    case 11: return ReadAs<CtExpr>(r, out, ReadCt);
    case 12: *out = CounterExpr{}; return true;
    case 13: return ReadAs<FibExpr>(r, out, ReadFib);
    case 14: return ReadAs<DynsetExpr>(r, out, ReadDynset);
    case 15: *out = NotrackExpr{}; return true;
    default: return r.FailHere("exprType", "unknown expression type " + std::to_string(type));
  }
}

}  // namespace kpn
