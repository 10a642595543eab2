#include "nft/dump_parse.h"

#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <cstring>

#include "netlink/attr.h"

namespace kpn {
namespace nft {

namespace {

Bytes DataValue(const AttrView& nest) {
  AttrView d[NFTA_DATA_MAX + 1];
  if (!nest.present() || !ParseAttrs(nest.data, nest.len, d, NFTA_DATA_MAX)) return Bytes();
  const AttrView& v = d[NFTA_DATA_VALUE];
  return v.present() ? Bytes(v.data, v.data + v.len) : Bytes();
}

void ParseElemData(const AttrView& nest, ElemInfo* e) {
  AttrView d[NFTA_DATA_MAX + 1];
  if (!nest.present() || !ParseAttrs(nest.data, nest.len, d, NFTA_DATA_MAX)) return;
  if (d[NFTA_DATA_VALUE].present()) e->data = DataValue(nest);
  AttrView v[NFTA_VERDICT_MAX + 1];
  const AttrView& vn = d[NFTA_DATA_VERDICT];
  if (vn.present() && ParseAttrs(vn.data, vn.len, v, NFTA_VERDICT_MAX)) {
    e->hasVerdict = true;
    e->verdict.code = int32_t(AttrBe32(v[NFTA_VERDICT_CODE]));
    e->verdict.chain = AttrStr(v[NFTA_VERDICT_CHAIN]);
  }
}

// The chain of an immediate expression's jump or goto verdict; empty for anything else.
std::string ImmediateJump(const AttrView& exprData) {
  AttrView im[NFTA_IMMEDIATE_MAX + 1];
  if (!exprData.present() || !ParseAttrs(exprData.data, exprData.len, im, NFTA_IMMEDIATE_MAX)) return std::string();
  if (!im[NFTA_IMMEDIATE_DREG].present() || AttrBe32(im[NFTA_IMMEDIATE_DREG]) != NFT_REG_VERDICT) return std::string();
  AttrView d[NFTA_DATA_MAX + 1];
  const AttrView& data = im[NFTA_IMMEDIATE_DATA];
  if (!data.present() || !ParseAttrs(data.data, data.len, d, NFTA_DATA_MAX)) return std::string();
  AttrView v[NFTA_VERDICT_MAX + 1];
  const AttrView& vn = d[NFTA_DATA_VERDICT];
  if (!vn.present() || !ParseAttrs(vn.data, vn.len, v, NFTA_VERDICT_MAX) || !v[NFTA_VERDICT_CODE].present()) return std::string();
  const int32_t code = int32_t(AttrBe32(v[NFTA_VERDICT_CODE]));
  if (code != NFT_JUMP && code != NFT_GOTO) return std::string();
  return AttrStr(v[NFTA_VERDICT_CHAIN]);
}

}  // namespace

bool NftBody(const uint8_t* p, size_t n, uint8_t* family, const uint8_t** attrs, size_t* len) {
  if (n < NLMSG_ALIGN(sizeof(nfgenmsg))) return false;
  nfgenmsg g;
  std::memcpy(&g, p, sizeof g);
  *family = g.nfgen_family;
  *attrs = p + NLMSG_ALIGN(sizeof(nfgenmsg));
  *len = n - NLMSG_ALIGN(sizeof(nfgenmsg));
  return true;
}

bool ParseGenId(const uint8_t* p, size_t n, uint32_t* out) {
  AttrView tb[NFTA_GEN_MAX + 1];
  if (!ParseAttrs(p, n, tb, NFTA_GEN_MAX) || !tb[NFTA_GEN_ID].present() || tb[NFTA_GEN_ID].len != 4) return false;
  *out = AttrBe32(tb[NFTA_GEN_ID]);
  return true;
}

void ParseTable(std::vector<TableId>* out, uint8_t family, const uint8_t* p, size_t n) {
  AttrView tb[NFTA_TABLE_MAX + 1];
  if (!ParseAttrs(p, n, tb, NFTA_TABLE_MAX) || !tb[NFTA_TABLE_NAME].present()) return;
  out->push_back(TableId{family, AttrStr(tb[NFTA_TABLE_NAME])});
}

void ParseChain(TableDump* out, const uint8_t* p, size_t n) {
  AttrView tb[NFTA_CHAIN_MAX + 1];
  if (!ParseAttrs(p, n, tb, NFTA_CHAIN_MAX)) return;
  ChainInfo c;
  c.table = AttrStr(tb[NFTA_CHAIN_TABLE]);
  c.name = AttrStr(tb[NFTA_CHAIN_NAME]);
  c.handle = AttrBe64(tb[NFTA_CHAIN_HANDLE]);
  AttrView hook[NFTA_HOOK_MAX + 1];
  const AttrView& h = tb[NFTA_CHAIN_HOOK];
  if (h.present() && ParseAttrs(h.data, h.len, hook, NFTA_HOOK_MAX) && hook[NFTA_HOOK_HOOKNUM].present()) {
    c.hasHook = true;
    c.hook = AttrBe32(hook[NFTA_HOOK_HOOKNUM]);
    c.priority = int32_t(AttrBe32(hook[NFTA_HOOK_PRIORITY]));
  }
  c.type = AttrStr(tb[NFTA_CHAIN_TYPE]);
  c.hasPolicy = tb[NFTA_CHAIN_POLICY].present();
  c.policy = AttrBe32(tb[NFTA_CHAIN_POLICY]);
  out->chains.push_back(std::move(c));
}

void ParseRule(TableDump* out, const uint8_t* p, size_t n, bool keepRaw) {
  AttrView tb[NFTA_RULE_MAX + 1];
  if (!ParseAttrs(p, n, tb, NFTA_RULE_MAX)) return;
  RuleInfo r;
  r.chain = AttrStr(tb[NFTA_RULE_CHAIN]);
  r.handle = AttrBe64(tb[NFTA_RULE_HANDLE]);
  const AttrView& list = tb[NFTA_RULE_EXPRESSIONS];
  ForEachAttr(list.data, list.present() ? list.len : 0, [&](uint16_t, AttrView el) {
    AttrView e[NFTA_EXPR_MAX + 1];
    if (!ParseAttrs(el.data, el.len, e, NFTA_EXPR_MAX)) return;
    r.exprs.push_back(AttrStr(e[NFTA_EXPR_NAME]));
    if (r.exprs.back() != "immediate") return;
    std::string target = ImmediateJump(e[NFTA_EXPR_DATA]);
    if (!target.empty()) r.jumps.push_back(std::move(target));
  });
  if (keepRaw) {
    if (list.present()) r.exprsRaw.assign(list.data, list.data + list.len);
    const AttrView& ud = tb[NFTA_RULE_USERDATA];
    if (ud.present()) r.userdata.assign(ud.data, ud.data + ud.len);
  }
  out->rules.push_back(std::move(r));
}

// NFTA_SET_DESC_CONCAT's field lengths, at most kMaxConcatFields; a malformed one ends the list.
static void ParseConcat(const AttrView& descAttr, std::vector<uint32_t>* out) {
  constexpr size_t kMaxConcatFields = 16;  // NFT_REG32_COUNT: the kernel takes no more
  AttrView desc[NFTA_SET_DESC_MAX + 1];
  if (!descAttr.present() || !ParseAttrs(descAttr.data, descAttr.len, desc, NFTA_SET_DESC_MAX)) return;
  const AttrView& list = desc[NFTA_SET_DESC_CONCAT];
  ForEachAttr(list.data, list.present() ? list.len : 0, [&](uint16_t, AttrView el) {
    AttrView field[NFTA_SET_FIELD_MAX + 1];
    if (out->size() >= kMaxConcatFields || !ParseAttrs(el.data, el.len, field, NFTA_SET_FIELD_MAX)) return;
    if (field[NFTA_SET_FIELD_LEN].len == 4) out->push_back(AttrBe32(field[NFTA_SET_FIELD_LEN]));
  });
}

void ParseSet(TableDump* out, const uint8_t* p, size_t n) {
  AttrView tb[NFTA_SET_MAX + 1];
  if (!ParseAttrs(p, n, tb, NFTA_SET_MAX)) return;
  SetInfo s;
  s.name = AttrStr(tb[NFTA_SET_NAME]);
  s.flags = AttrBe32(tb[NFTA_SET_FLAGS]);
  s.keyType = AttrBe32(tb[NFTA_SET_KEY_TYPE]);
  s.keyLen = AttrBe32(tb[NFTA_SET_KEY_LEN]);
  s.dataType = AttrBe32(tb[NFTA_SET_DATA_TYPE]);
  s.dataLen = AttrBe32(tb[NFTA_SET_DATA_LEN]);
  ParseConcat(tb[NFTA_SET_DESC], &s.concat);
  out->sets.push_back(std::move(s));
}

void ParseElems(SetInfo* s, const uint8_t* p, size_t n) {
  AttrView tb[NFTA_SET_ELEM_LIST_MAX + 1];
  if (!ParseAttrs(p, n, tb, NFTA_SET_ELEM_LIST_MAX)) return;
  const AttrView& list = tb[NFTA_SET_ELEM_LIST_ELEMENTS];
  ForEachAttr(list.data, list.present() ? list.len : 0, [&](uint16_t, AttrView el) {
    AttrView a[NFTA_SET_ELEM_MAX + 1];
    if (!ParseAttrs(el.data, el.len, a, NFTA_SET_ELEM_MAX)) return;
    ElemInfo e;
    e.key = DataValue(a[NFTA_SET_ELEM_KEY]);
    e.keyEnd = DataValue(a[NFTA_SET_ELEM_KEY_END]);
    e.flags = AttrBe32(a[NFTA_SET_ELEM_FLAGS]);
    ParseElemData(a[NFTA_SET_ELEM_DATA], &e);
    s->elements.push_back(std::move(e));
  });
}

}  // namespace nft
}  // namespace kpn
