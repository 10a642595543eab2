// nftables netlink encoding of decoded ops and expressions (kernel UAPI attribute layouts).
#pragma once
#include <cstdint>
#include <string_view>

#include "netlink/builder.h"
#include "txn/types.h"

namespace kpn {
namespace nft {

// Starts an nf_tables message (type NFNL_SUBSYS_NFTABLES << 8 | msg).
size_t BeginNftMsg(NlBuilder& b, uint8_t msg, uint16_t flags, uint32_t seq, uint8_t family);

// Data helpers: nest(type){NFTA_DATA_VALUE} and nest(type){NFTA_DATA_VERDICT{code, chain}}.
void PutDataValue(NlBuilder& b, uint16_t type, const Bytes& value);
void PutDataValue(NlBuilder& b, uint16_t type, ByteView value);
void PutVerdictData(NlBuilder& b, uint16_t type, const Verdict& v);
void PutVerdictData(NlBuilder& b, uint16_t type, int32_t code, std::string_view chain);

// One message per op except element ops (see elements.cc). flags carry NLM_F_* to add.
void EncodeTableOp(NlBuilder& b, const Op& op, uint32_t seq, uint16_t flags);
void EncodeChainOp(NlBuilder& b, const Op& op, uint32_t seq, uint16_t flags);
void EncodeRuleOp(NlBuilder& b, const Op& op, uint32_t seq, uint16_t flags);
void EncodeSetOp(NlBuilder& b, const Op& op, long opIndex, uint32_t seq, uint16_t flags);

// Element ops, one message at a time (batch.cc splits an op's elements): the message's header,
// table, set and the open NFTA_SET_ELEM_LIST_ELEMENTS nest; its elements; the end of both.
struct ElemsMsg { size_t msg, list; };
ElemsMsg BeginElemsMsg(NlBuilder& b, const Op& op, uint32_t seq, uint16_t flags);
void PutElement(NlBuilder& b, const ElementView& e);
void EndElemsMsg(NlBuilder& b, const ElemsMsg& m);
// Bytes PutElement appends inside NFTA_SET_ELEM_LIST_ELEMENTS (for splitting under 64 KiB).
size_t ElementAttrSize(const ElementView& e);

// The kernel's name for an expression ("payload", "cmp", ...).
const char* ExprName(const Expr& e);

// Appends NFTA_LIST_ELEM{NFTA_EXPR_NAME, NFTA_EXPR_DATA{...}} for one expression.
void EncodeExpr(NlBuilder& b, const Expr& e);

// Per-expression NFTA_EXPR_DATA contents.
void EncodePayload(NlBuilder& b, const PayloadExpr& e);
void EncodeMeta(NlBuilder& b, const MetaExpr& e);
void EncodeCmp(NlBuilder& b, const CmpExpr& e);
void EncodeBitwise(NlBuilder& b, const BitwiseExpr& e);
void EncodeLookup(NlBuilder& b, const LookupExpr& e);
void EncodeImmediate(NlBuilder& b, const ImmediateExpr& e);
void EncodeNat(NlBuilder& b, const NatExpr& e);
void EncodeMasq(NlBuilder& b, const MasqExpr& e);
void EncodeReject(NlBuilder& b, const RejectExpr& e);
void EncodeNumgen(NlBuilder& b, const NumgenExpr& e);
void EncodeCt(NlBuilder& b, const CtExpr& e);
void EncodeFib(NlBuilder& b, const FibExpr& e);
void EncodeDynset(NlBuilder& b, const DynsetExpr& e);

}  // namespace nft
}  // namespace kpn
