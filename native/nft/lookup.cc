#include "nft/lookup.h"

#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <cerrno>

#include "nft/encode.h"
#include "nft/exchange.h"

namespace kpn {
namespace nft {

namespace {

const MsgHandler kIgnore = [](const nlmsghdr&, const uint8_t*, size_t) {};

// The kernel's ENOENT says only "No such file or directory": name what was missing.
RequestError Named(RequestError err, const std::string& what) {
  if (err.errnum == ENOENT) err.message = what + " does not exist";
  return err;
}

RequestError CheckSetExists(NetlinkSocket& sock, uint8_t family, const std::string& table, const std::string& set) {
  uint32_t seq;
  auto req = Request(sock, NFT_MSG_GETSET, NLM_F_ACK, family, &seq, [&](NlBuilder& b) {
    b.PutStr(NFTA_SET_TABLE, table);
    b.PutStr(NFTA_SET_NAME, set);
  });
  return Named(RunRequest(sock, req, seq, kIgnore), "set '" + set + "' in table " + table);
}

RequestError GetElement(NetlinkSocket& sock, uint8_t family, const std::string& table, const std::string& set,
                        const Bytes& key, ElemLookup* out) {
  uint32_t seq;
  auto req = Request(sock, NFT_MSG_GETSETELEM, NLM_F_ACK, family, &seq, [&](NlBuilder& b) {
    b.PutStr(NFTA_SET_ELEM_LIST_TABLE, table);
    b.PutStr(NFTA_SET_ELEM_LIST_SET, set);
    size_t list = b.BeginNest(NFTA_SET_ELEM_LIST_ELEMENTS);
    size_t el = b.BeginNest(NFTA_LIST_ELEM);
    PutDataValue(b, NFTA_SET_ELEM_KEY, key);
    b.EndNest(el);
    b.EndNest(list);
  });
  SetInfo reply;
  RequestError err = RunRequest(sock, req, seq, [&](const nlmsghdr& h, const uint8_t* p, size_t n) {
    uint8_t fam; const uint8_t* a; size_t len;
    if (h.nlmsg_type != ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWSETELEM) || !NftBody(p, n, &fam, &a, &len)) return;
    ParseElems(&reply, a, len);
  });
  if (err.errnum == ENOENT) return RequestError{};
  if (err.errnum) return err;
  if (reply.elements.empty()) return RequestError{EPROTO, "the kernel's answer to GETSETELEM carries no element"};
  out->found = true;
  out->elem = std::move(reply.elements.front());
  return err;
}

}  // namespace

RequestError GetElements(NetlinkSocket& sock, uint8_t family, const std::string& table, const std::string& set,
                         const std::vector<Bytes>& keys, std::vector<ElemLookup>* out) {
  RequestError err = CheckSetExists(sock, family, table, set);
  if (err.errnum) return err;
  out->assign(keys.size(), ElemLookup{});
  for (size_t i = 0; i < keys.size(); i++) {
    err = GetElement(sock, family, table, set, keys[i], &(*out)[i]);
    if (err.errnum) {
      err.message = "keys[" + std::to_string(i) + "]: " + err.message;
      return err;
    }
  }
  return err;
}

RequestError DumpChainRules(NetlinkSocket& sock, uint8_t family, const std::string& table, const std::string& chain,
                            std::vector<RuleInfo>* out) {
  uint32_t seq;
  auto req = Request(sock, NFT_MSG_GETCHAIN, NLM_F_ACK, family, &seq, [&](NlBuilder& b) {
    b.PutStr(NFTA_CHAIN_TABLE, table);
    b.PutStr(NFTA_CHAIN_NAME, chain);
  });
  RequestError err = Named(RunRequest(sock, req, seq, kIgnore), "chain '" + chain + "' in table " + table);
  if (err.errnum) return err;
  TableDump dump;
  err = Dump(sock, NFT_MSG_GETRULE, family,
             [&](NlBuilder& b) { b.PutStr(NFTA_RULE_TABLE, table); b.PutStr(NFTA_RULE_CHAIN, chain); },
             [&](uint8_t, const uint8_t* p, size_t n) { ParseRule(&dump, p, n, true); });
  if (err.errnum) return err;
  for (RuleInfo& r : dump.rules) if (r.chain == chain) out->push_back(std::move(r));
  return err;
}

}  // namespace nft
}  // namespace kpn
