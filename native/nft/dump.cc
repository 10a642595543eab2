#include "dump.h"

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <cerrno>
#include <cstring>
#include <functional>

#include "../nl_attr.h"
#include "../nl_builder.h"
#include "encode.h"

namespace kpn {
namespace nft {

namespace {

constexpr int kDumpRetries = 5;

// Payload after nfgenmsg, plus the family it carries.
bool NftBody(const uint8_t* p, size_t n, uint8_t* family, const uint8_t** attrs, size_t* len) {
  if (n < NLMSG_ALIGN(sizeof(nfgenmsg))) return false;
  nfgenmsg g;
  std::memcpy(&g, p, sizeof g);
  *family = g.nfgen_family;
  *attrs = p + NLMSG_ALIGN(sizeof(nfgenmsg));
  *len = n - NLMSG_ALIGN(sizeof(nfgenmsg));
  return true;
}

// Builds a one-message request; `attrs` adds the attributes.
template <typename F>
std::vector<uint8_t> Request(NetlinkSocket& sock, uint8_t msg, uint16_t flags, uint8_t family, uint32_t* seq, F attrs) {
  NlBuilder b;
  *seq = sock.ReserveSeq(1);
  size_t m = BeginNftMsg(b, msg, flags, *seq, family);
  attrs(b);
  b.EndMsg(m);
  return std::move(b.mutable_data());
}

// Runs a dump of messages of type `msg`, calling parse(attrs, len) for each.
template <typename Parse>
RequestError Dump(NetlinkSocket& sock, uint8_t msg, uint8_t family, const std::function<void(NlBuilder&)>& attrs, Parse parse) {
  RequestError err;
  for (int attempt = 0; attempt < kDumpRetries; attempt++) {
    uint32_t seq;
    auto req = Request(sock, msg, NLM_F_DUMP, family, &seq, attrs);
    std::vector<std::pair<uint8_t, std::vector<uint8_t>>> bodies;
    err = RunDump(sock, req, seq, [&](const nlmsghdr& h, const uint8_t* p, size_t n) {
      uint8_t fam; const uint8_t* a; size_t len;
      // Replies to GET* carry the matching NEW* type.
      if ((h.nlmsg_type >> 8) != NFNL_SUBSYS_NFTABLES) return;
      if (NftBody(p, n, &fam, &a, &len)) bodies.emplace_back(fam, std::vector<uint8_t>(a, a + len));
    });
    if (err.errnum == EINTR) continue;
    if (err.errnum == 0) for (auto& b : bodies) parse(b.first, b.second.data(), b.second.size());
    return err;
  }
  return err;
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

void ParseRule(TableDump* out, const uint8_t* p, size_t n) {
  AttrView tb[NFTA_RULE_MAX + 1];
  if (!ParseAttrs(p, n, tb, NFTA_RULE_MAX)) return;
  RuleInfo r;
  r.chain = AttrStr(tb[NFTA_RULE_CHAIN]);
  r.handle = AttrBe64(tb[NFTA_RULE_HANDLE]);
  const AttrView& list = tb[NFTA_RULE_EXPRESSIONS];
  ForEachAttr(list.data, list.present() ? list.len : 0, [&](uint16_t, AttrView el) {
    AttrView e[NFTA_EXPR_MAX + 1];
    if (ParseAttrs(el.data, el.len, e, NFTA_EXPR_MAX)) r.exprs.push_back(AttrStr(e[NFTA_EXPR_NAME]));
  });
  out->rules.push_back(std::move(r));
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
  out->sets.push_back(std::move(s));
}

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

RequestError CheckTableExists(NetlinkSocket& sock, uint8_t family, const std::string& table) {
  uint32_t seq;
  auto req = Request(sock, NFT_MSG_GETTABLE, NLM_F_ACK, family, &seq,
                     [&](NlBuilder& b) { b.PutStr(NFTA_TABLE_NAME, table); });
  return RunRequest(sock, req, seq, [](const nlmsghdr&, const uint8_t*, size_t) {});
}

}  // namespace

RequestError ListTables(NetlinkSocket& sock, std::vector<TableId>* out) {
  return Dump(sock, NFT_MSG_GETTABLE, NFPROTO_UNSPEC, [](NlBuilder&) {},
              [&](uint8_t fam, const uint8_t* p, size_t n) { ParseTable(out, fam, p, n); });
}

RequestError DumpTable(NetlinkSocket& sock, uint8_t family, const std::string& table, bool withElements, TableDump* out) {
  RequestError err = CheckTableExists(sock, family, table);
  if (err.errnum) return err;
  auto byTable = [&](uint16_t attr) { return [&table, attr](NlBuilder& b) { b.PutStr(attr, table); }; };
  err = Dump(sock, NFT_MSG_GETCHAIN, family, byTable(NFTA_CHAIN_TABLE),
             [&](uint8_t, const uint8_t* p, size_t n) { ParseChain(out, p, n); });
  if (err.errnum) return err;
  err = Dump(sock, NFT_MSG_GETRULE, family, byTable(NFTA_RULE_TABLE),
             [&](uint8_t, const uint8_t* p, size_t n) { ParseRule(out, p, n); });
  if (err.errnum) return err;
  err = Dump(sock, NFT_MSG_GETSET, family, byTable(NFTA_SET_TABLE),
             [&](uint8_t, const uint8_t* p, size_t n) { ParseSet(out, p, n); });
  if (!withElements) return err;
  for (SetInfo& s : out->sets) {
    if (err.errnum) return err;
    err = Dump(sock, NFT_MSG_GETSETELEM, family,
               [&](NlBuilder& b) { b.PutStr(NFTA_SET_ELEM_LIST_TABLE, table); b.PutStr(NFTA_SET_ELEM_LIST_SET, s.name); },
               [&](uint8_t, const uint8_t* p, size_t n) { ParseElems(&s, p, n); });
  }
  return err;
}

}  // namespace nft
}  // namespace kpn
