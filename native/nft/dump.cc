#include "nft/dump.h"

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <cerrno>
#include <cstring>
#include <functional>

#include "netlink/attr.h"
#include "netlink/builder.h"
#include "nft/dump_parse.h"
#include "nft/encode.h"
#include "nft/exchange.h"

namespace kpn {
namespace nft {

namespace {

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

RequestError GetGeneration(NetlinkSocket& sock, uint32_t* out) {
  uint32_t seq;
  auto req = Request(sock, NFT_MSG_GETGEN, NLM_F_ACK, NFPROTO_UNSPEC, &seq, [](NlBuilder&) {});
  bool found = false;
  RequestError err = RunRequest(sock, req, seq, [&](const nlmsghdr& h, const uint8_t* p, size_t n) {
    uint8_t fam; const uint8_t* a; size_t len;
    if (h.nlmsg_type != ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWGEN) || !NftBody(p, n, &fam, &a, &len)) return;
    found = found || ParseGenId(a, len, out);
  });
  if (err.errnum == 0 && !found) err = RequestError{EPROTO, "the kernel's answer to GETGEN carries no generation id"};
  return err;
}

RequestError DumpTable(NetlinkSocket& sock, uint8_t family, const std::string& table, bool withElements, TableDump* out,
                       const std::string& onlySet) {
  RequestError err = CheckTableExists(sock, family, table);
  if (err.errnum) return err;
  auto byTable = [&](uint16_t attr) { return [&table, attr](NlBuilder& b) { b.PutStr(attr, table); }; };
  if (!onlySet.empty()) {
    err = Dump(sock, NFT_MSG_GETSET, family, byTable(NFTA_SET_TABLE), [&](uint8_t, const uint8_t* p, size_t n) {
      ParseSet(out, p, n);
      if (!out->sets.empty() && out->sets.back().name != onlySet) out->sets.pop_back();
    });
    if (err.errnum) return err;
    if (out->sets.empty()) return RequestError{ENOENT, "no set " + onlySet + " in table " + table};
    SetInfo& s = out->sets.front();
    return Dump(sock, NFT_MSG_GETSETELEM, family,
                [&](NlBuilder& b) { b.PutStr(NFTA_SET_ELEM_LIST_TABLE, table); b.PutStr(NFTA_SET_ELEM_LIST_SET, s.name); },
                [&](uint8_t, const uint8_t* p, size_t n) { ParseElems(&s, p, n); });
  }
  // The kernel's chain dump ignores NFTA_CHAIN_TABLE and lists every chain of the family.
  err = Dump(sock, NFT_MSG_GETCHAIN, family, byTable(NFTA_CHAIN_TABLE), [&](uint8_t, const uint8_t* p, size_t n) {
    ParseChain(out, p, n);
    if (!out->chains.empty() && out->chains.back().table != table) out->chains.pop_back();
  });
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
