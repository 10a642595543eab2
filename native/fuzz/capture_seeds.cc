// Records real kernel replies as fuzz seeds: every datagram the kernel sends back is written as it
// came, one file each. Run by capture-seeds.sh inside a scratch network namespace it prepared (an
// nftables table, DNATed UDP flows, an SCTP entry). Usage: capture_seeds <seeds-dir>
//   <dir>/nft_dump/     dumps of tables, chains, rules, sets and elements
//   <dir>/nl_acks/      acks and errors with extack: seed_txn.h's batch, capped and uncapped, a GET
//   <dir>/ct_messages/  conntrack list and filtered dumps, stats, delete acks
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "conntrack/ct_messages.h"
#include "conntrack/ct_stats_messages.h"
#include "netlink/attr.h"
#include "netlink/builder.h"
#include "nft/batch.h"
#include "nft/encode.h"
#include "seed_txn.h"

namespace {

class RawNetlink {
 public:
  explicit RawNetlink(bool capAck) {
    fd_ = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
    sockaddr_nl sa{};
    sa.nl_family = AF_NETLINK;
    int one = 1;
    timeval tv{0, 300 * 1000};
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
        setsockopt(fd_, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof one) != 0 ||
        (capAck && setsockopt(fd_, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof one) != 0) ||
        setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
      std::perror("netlink socket");
      _exit(1);
    }
  }
  ~RawNetlink() { close(fd_); }

  // Sends `req`, then writes every reply datagram to <prefix>-<n>.bin until the kernel is quiet
  // for 300 ms or a datagram ends the dump. Returns the datagrams.
  std::vector<std::vector<uint8_t>> Record(const std::vector<uint8_t>& req, const std::string& prefix) {
    if (send(fd_, req.data(), req.size(), 0) != ssize_t(req.size())) {
      std::perror("send");
      _exit(1);
    }
    std::vector<std::vector<uint8_t>> got;
    std::vector<uint8_t> buf(1 << 20);
    for (;;) {
      ssize_t n = recv(fd_, buf.data(), buf.size(), 0);
      if (n <= 0) break;
      got.emplace_back(buf.begin(), buf.begin() + n);
      Write(prefix + "-" + std::to_string(got.size()) + ".bin", got.back());
      if (EndsDump(got.back())) break;
    }
    return got;
  }

 private:
  static bool EndsDump(const std::vector<uint8_t>& d) {
    bool done = false;
    kpn::ForEachMsg(d.data(), d.size(), [&](const nlmsghdr& h, const uint8_t*, size_t) {
      done = done || h.nlmsg_type == NLMSG_DONE;
      return true;
    });
    return done;
  }

  static void Write(const std::string& path, const std::vector<uint8_t>& d) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(d.data(), 1, d.size(), f) != d.size() || std::fclose(f) != 0) {
      std::perror(path.c_str());
      _exit(1);
    }
    std::printf("%s (%zu bytes)\n", path.c_str(), d.size());
  }

  int fd_ = -1;
};

std::vector<uint8_t> NftGet(uint8_t msg, uint16_t flags, uint8_t family, uint32_t seq,
                            const std::vector<std::pair<uint16_t, std::string>>& strs) {
  kpn::NlBuilder b;
  size_t m = kpn::nft::BeginNftMsg(b, msg, flags, seq, family);
  for (auto& [type, s] : strs) b.PutStr(type, s);
  b.EndMsg(m);
  return b.data();
}

void CaptureNftDumps(const std::string& dir) {
  RawNetlink nl(true);
  const uint8_t ip = NFPROTO_IPV4;
  nl.Record(NftGet(NFT_MSG_GETTABLE, NLM_F_DUMP, NFPROTO_UNSPEC, 1, {}), dir + "/tables");
  nl.Record(NftGet(NFT_MSG_GETCHAIN, NLM_F_DUMP, ip, 2, {{NFTA_CHAIN_TABLE, "seeds"}}), dir + "/chains");
  nl.Record(NftGet(NFT_MSG_GETRULE, NLM_F_DUMP, ip, 3, {{NFTA_RULE_TABLE, "seeds"}}), dir + "/rules");
  nl.Record(NftGet(NFT_MSG_GETSET, NLM_F_DUMP, ip, 4, {{NFTA_SET_TABLE, "seeds"}}), dir + "/sets");
  uint32_t seq = 5;
  for (const char* set : {"svc", "eps", "ranges", "pairs"}) {
    nl.Record(NftGet(NFT_MSG_GETSETELEM, NLM_F_DUMP, ip, seq++, {{NFTA_SET_ELEM_LIST_TABLE, "seeds"}, {NFTA_SET_ELEM_LIST_SET, set}}),
              dir + "/elems-" + set);
  }
}

void CaptureAcks(const std::string& dir) {
  kpn::nft::EncodedBatch batch;
  long failedOp = -1;
  if (!kpn::nft::EncodeBatch(kpn::fuzzseed::AckSeedTransaction(), &batch, &failedOp)) {
    std::fprintf(stderr, "seed transaction does not encode (op %ld)\n", failedOp);
    _exit(1);
  }
  kpn::nft::Rebase(&batch.bytes, kpn::fuzzseed::kAckSeedBase);
  RawNetlink(true).Record(batch.bytes, dir + "/batch-capped");
  // Without NETLINK_CAP_ACK the kernel echoes each failing message before the extack TLVs.
  RawNetlink(false).Record(batch.bytes, dir + "/batch-uncapped");
  RawNetlink nl(true);
  nl.Record(NftGet(NFT_MSG_GETTABLE, NLM_F_ACK, NFPROTO_IPV4, 7, {{NFTA_TABLE_NAME, "no-such-table"}}), dir + "/get-missing");
  nl.Record(NftGet(NFT_MSG_GETTABLE, NLM_F_ACK, NFPROTO_IPV4, 8, {{NFTA_TABLE_NAME, "seeds"}}), dir + "/get-ok");
}

kpn::ct::Filter UdpFilter(uint8_t family, const char* origDst, uint16_t port) {
  kpn::ct::Filter f;
  f.family = family;
  f.proto = IPPROTO_UDP;
  f.hasOrigDst = inet_pton(family, origDst, f.origDst) == 1;
  f.hasOrigDstPort = true;
  f.origDstPort = port;
  return f;
}

// Entries of the dump datagrams, parsed as the delete does.
std::vector<kpn::ct::Entry> Entries(const std::vector<std::vector<uint8_t>>& datagrams) {
  std::vector<kpn::ct::Entry> out;
  for (const auto& d : datagrams) {
    kpn::ForEachMsg(d.data(), d.size(), [&](const nlmsghdr& h, const uint8_t* p, size_t n) {
      kpn::ct::Entry e;
      if ((h.nlmsg_type & 0xff) == IPCTNL_MSG_CT_NEW && kpn::ct::ParseEntry(p, n, &e)) out.push_back(e);
      return true;
    });
  }
  return out;
}

void CaptureConntrack(const std::string& dir) {
  RawNetlink nl(true);
  uint32_t seq = 100;
  for (auto [family, proto, name] : {std::tuple{AF_INET, IPPROTO_UDP, "list-udp4"}, std::tuple{AF_INET6, IPPROTO_UDP, "list-udp6"},
                                     std::tuple{AF_INET, IPPROTO_SCTP, "list-sctp4"}}) {
    kpn::NlBuilder b;
    kpn::ct::AppendListRequest(b, uint8_t(family), uint8_t(proto), seq++);
    nl.Record(b.data(), dir + "/" + name);
  }
  kpn::NlBuilder dump;
  kpn::ct::AppendDumpRequest(dump, UdpFilter(AF_INET, "10.96.0.10", 53), seq++);
  auto entries = Entries(nl.Record(dump.data(), dir + "/dump-filtered"));
  kpn::NlBuilder dump6;
  kpn::ct::AppendDumpRequest(dump6, UdpFilter(AF_INET6, "fd00:96::10", 53), seq++);
  nl.Record(dump6.data(), dir + "/dump-filtered6");
  kpn::NlBuilder stats;
  stats.EndMsg(stats.BeginMsg((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET_STATS, NLM_F_REQUEST, seq++, AF_UNSPEC, 0));
  nl.Record(stats.data(), dir + "/stats");
  kpn::NlBuilder statsCpu;
  kpn::ct::AppendStatsCpuRequest(statsCpu, seq++);
  nl.Record(statsCpu.data(), dir + "/stats-cpu");
  if (entries.empty()) {
    std::fprintf(stderr, "no conntrack entries to delete: was the namespace prepared?\n");
    _exit(1);
  }
  // The same entry twice in one datagram: acked, then ENOENT.
  kpn::NlBuilder del;
  kpn::ct::AppendDelete(del, entries[0], seq);
  kpn::ct::AppendDelete(del, entries[0], seq + 1);
  nl.Record(del.data(), dir + "/delete-acks");
}

void MakeDir(const std::string& d) {
  if (mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) {
    std::perror(d.c_str());
    _exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: capture_seeds <seeds-dir>\n");
    return 2;
  }
  std::string dir = argv[1];
  for (const char* sub : {"/nft_dump", "/nl_acks", "/ct_messages"}) MakeDir(dir + sub);
  CaptureNftDumps(dir + "/nft_dump");
  CaptureAcks(dir + "/nl_acks");
  CaptureConntrack(dir + "/ct_messages");
  return 0;
}
