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

namespace kpn {
namespace nft {

namespace {

constexpr int kDumpRetries = 5;

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

RequestError DumpTable(NetlinkSocket& sock, uint8_t family, const std::string& table, bool withElements, TableDump* out) {
  RequestError err = CheckTableExists(sock, family, table);
  if (err.errnum) return err;
  auto byTable = [&](uint16_t attr) { return [&table, attr](NlBuilder& b) { b.PutStr(attr, table); }; };
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
