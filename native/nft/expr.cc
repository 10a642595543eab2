#include <linux/netfilter/nf_tables.h>

#include <type_traits>

#include "nft/encode.h"

namespace kpn {
namespace nft {

namespace {

// Kernel expression names, indexed like the Expr variant (wire type - 1).
constexpr const char* kExprNames[] = {"payload", "meta", "cmp", "bitwise", "lookup", "immediate",
                                      "nat", "masq", "reject", "numgen", "ct", "counter", "fib",
                                      "dynset", "notrack"};
static_assert(sizeof(kExprNames) / sizeof(kExprNames[0]) == std::variant_size_v<Expr>,
              "one name per expression kind");

struct DataWriter {
  NlBuilder& b;
  void operator()(const PayloadExpr& e) { EncodePayload(b, e); }
  void operator()(const MetaExpr& e) { EncodeMeta(b, e); }
  void operator()(const CmpExpr& e) { EncodeCmp(b, e); }
  void operator()(const BitwiseExpr& e) { EncodeBitwise(b, e); }
  void operator()(const LookupExpr& e) { EncodeLookup(b, e); }
  void operator()(const ImmediateExpr& e) { EncodeImmediate(b, e); }
  void operator()(const NatExpr& e) { EncodeNat(b, e); }
  void operator()(const MasqExpr& e) { EncodeMasq(b, e); }
  void operator()(const RejectExpr& e) { EncodeReject(b, e); }
  void operator()(const NumgenExpr& e) { EncodeNumgen(b, e); }
  void operator()(const CtExpr& e) { EncodeCt(b, e); }
  void operator()(const CounterExpr&) {}
  void operator()(const FibExpr& e) { EncodeFib(b, e); }
  void operator()(const DynsetExpr& e) { EncodeDynset(b, e); }
  void operator()(const NotrackExpr&) {}
};

}  // namespace

const char* ExprName(const Expr& e) { return kExprNames[e.index()]; }

void EncodeExpr(NlBuilder& b, const Expr& e) {
  size_t el = b.BeginNest(NFTA_LIST_ELEM);
  b.PutStr(NFTA_EXPR_NAME, kExprNames[e.index()]);
  size_t data = b.BeginNest(NFTA_EXPR_DATA);
  std::visit(DataWriter{b}, e);
  b.EndNest(data);
  b.EndNest(el);
}

}  // namespace nft
}  // namespace kpn
