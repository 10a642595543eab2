// One nftables request, or one dump retried while the kernel flags it interrupted: shared by the
// table dumps (nft/dump.cc) and the look-ups by key (nft/lookup.cc).
#pragma once
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "netlink/builder.h"
#include "netlink/request.h"
#include "netlink/socket.h"
#include "nft/dump_parse.h"
#include "nft/encode.h"

namespace kpn {
namespace nft {

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

// Runs a dump of messages of type `msg`, calling parse(family, attrs, len) for each nftables body.
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

}  // namespace nft
}  // namespace kpn
