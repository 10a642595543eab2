#include "nft/rule_match.h"

#include <linux/netfilter/nf_nat.h>
#include <linux/netlink.h>

#include <cstring>
#include <vector>

#include "netlink/attr.h"
#include "netlink/builder.h"
#include "nft/encode.h"

namespace kpn {
namespace nft {

namespace {

constexpr int kMaxDepth = 8;

struct RawAttr {
  uint16_t type;  // with NLA_F_NESTED / NLA_F_NET_BYTEORDER as sent
  const uint8_t* data;
  size_t len;
};

// Every attribute of [p, p+n) with its flags kept; false on a malformed header or length.
bool RawAttrs(const uint8_t* p, size_t n, std::vector<RawAttr>* out) {
  return ForEachRawAttr(p, n, [&](uint16_t type, AttrView v) { out->push_back(RawAttr{type, v.data, v.len}); });
}

bool AttrsCover(const uint8_t* want, size_t wantLen, const uint8_t* have, size_t haveLen, int depth) {
  if (depth > kMaxDepth) return false;
  std::vector<RawAttr> w, h;
  if (!RawAttrs(want, wantLen, &w) || !RawAttrs(have, haveLen, &h)) return false;
  for (const RawAttr& a : w) {
    const uint16_t type = a.type & NLA_TYPE_MASK;
    const RawAttr* match = nullptr;
    for (const RawAttr& b : h) {
      if ((b.type & NLA_TYPE_MASK) == type) {
        match = &b;
        break;
      }
    }
    if (!match) return false;
    if (a.type & NLA_F_NESTED) {
      if (!AttrsCover(a.data, a.len, match->data, match->len, depth + 1)) return false;
    } else if (a.len != match->len || (a.len > 0 && std::memcmp(a.data, match->data, a.len) != 0)) {
      return false;
    }
  }
  return true;
}

// What the kernel's nft_nat_init adds to the flags we send: MAP_IPS with an address register,
// PROTO_SPECIFIED with a port register. A dump shows the sum.
Expr AsKernelHolds(const Expr& e) {
  const NatExpr* nat = std::get_if<NatExpr>(&e);
  if (!nat) return e;
  NatExpr held = *nat;
  if (held.regAddrMin != 0) held.flags |= NF_NAT_RANGE_MAP_IPS;
  if (held.regProtoMin != 0) held.flags |= NF_NAT_RANGE_PROTO_SPECIFIED;
  return held;
}

}  // namespace

Bytes EncodeRuleExprs(const std::vector<Expr>& exprs) {
  NlBuilder b;
  for (const Expr& e : exprs) EncodeExpr(b, AsKernelHolds(e));
  return std::move(b.mutable_data());
}

bool ExprsCover(const uint8_t* want, size_t wantLen, const uint8_t* have, size_t haveLen) {
  // The list's entries are all NFTA_LIST_ELEM: they pair by position, not by type.
  std::vector<RawAttr> w, h;
  if (!RawAttrs(want, wantLen, &w) || !RawAttrs(have, haveLen, &h) || w.size() != h.size()) return false;
  for (size_t i = 0; i < w.size(); i++) {
    if (!AttrsCover(w[i].data, w[i].len, h[i].data, h[i].len, 1)) return false;
  }
  return true;
}

}  // namespace nft
}  // namespace kpn
