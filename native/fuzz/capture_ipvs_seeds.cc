// Records what a kernel with IPVS answers, one datagram per file, as seeds for the ipvs_replies
// fuzz target: the family lookup, acks of a batch with failing ops (every message acked, and the
// last only, as apply sends), service and destination dumps (with a connection's counts), the
// configuration, a lookup of a missing service. Run by capture-ipvs-seeds.sh in a scratch netns.
#include <linux/genetlink.h>
#include <linux/ip_vs.h>
#include <linux/netlink.h>

#include <arpa/inet.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ipvs/encode.h"
#include "ipvs/requests.h"
#include "netlink/attr.h"

using namespace kpn::ipvs;
using kpn::NetlinkSocket;
using kpn::NlBuilder;

static std::string g_dir;

// Sends `b` and writes every datagram until the reply to `lastSeq` (an ack, an error or DONE).
static void Record(NetlinkSocket& s, const NlBuilder& b, uint32_t lastSeq, const std::string& name) {
  if (s.SendOne(b.data().data(), b.size())) { perror("send"); return; }
  std::vector<uint8_t> buf;
  for (int i = 1;; i++) {
    if (s.RecvOne(&buf)) { perror("recv"); return; }
    std::string path = g_dir + "/" + name + "-" + std::to_string(i) + ".bin";
    FILE* f = fopen(path.c_str(), "wb");
    fwrite(buf.data(), 1, buf.size(), f);
    fclose(f);
    bool end = false;
    kpn::ForEachMsg(buf.data(), buf.size(), [&](const nlmsghdr& h, const uint8_t*, size_t) {
      if (h.nlmsg_seq == lastSeq && (h.nlmsg_type == NLMSG_DONE || h.nlmsg_type == NLMSG_ERROR)) end = true;
      return true;
    });
    if (end) return;
  }
}

static Service Svc(const char* addr, uint16_t port, uint16_t proto, bool persist) {
  Service s;
  s.key.addr.af = strchr(addr, ':') ? kAfInet6 : kAfInet;
  inet_pton(s.key.addr.af == kAfInet ? AF_INET : AF_INET6, addr, s.key.addr.bytes);
  s.key.port = port;
  s.key.protocol = proto;
  s.scheduler = persist ? "wrr" : "rr";
  s.flags = persist ? 1 : 0;
  s.timeout = persist ? 10800 : 0;
  s.prefixLength = s.key.addr.af == kAfInet ? (persist ? 24 : 32) : 128;
  return s;
}

static Dest Dst(const char* addr, uint16_t port, uint32_t weight) {
  Dest d;
  d.key.addr.af = strchr(addr, ':') ? kAfInet6 : kAfInet;
  inet_pton(d.key.addr.af == kAfInet ? AF_INET : AF_INET6, addr, d.key.addr.bytes);
  d.key.port = port;
  d.weight = weight;
  return d;
}

int main(int argc, char** argv) {
  g_dir = argc > 1 ? argv[1] : ".";
  NetlinkSocket s;
  std::string what;
  if (s.Open(NETLINK_GENERIC, "", &what)) { fprintf(stderr, "open: %s\n", what.c_str()); return 1; }
  uint16_t fam = 0;
  NlBuilder b;
  uint32_t seq = s.ReserveSeq(1);
  size_t m = BeginGenlMsg(b, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_REQUEST | NLM_F_ACK, seq);
  b.PutStr(CTRL_ATTR_FAMILY_NAME, IPVS_GENL_NAME);
  b.EndMsg(m);
  Record(s, b, seq, "family");
  if (kpn::RequestError e = ResolveFamily(s, &fam); e.errnum) { fprintf(stderr, "%s\n", e.message.c_str()); return 1; }

  Service a = Svc("10.0.9.1", 80, kProtoTcp, false), v6 = Svc("fd00:9::1", 53, kProtoUdp, true);
  Service sc = Svc("10.96.0.20", 3868, kProtoSctp, true);
  std::vector<Op> ops;
  for (const Service& x : {a, v6, sc, a}) ops.push_back(Op{OpCode::kAddService, x, {}});  // the last: EEXIST
  ops.push_back(Op{OpCode::kAddDest, a, Dst("127.0.0.1", 8080, 1)});
  ops.push_back(Op{OpCode::kAddDest, v6, Dst("fd00:1::5", 5353, 3)});
  ops.push_back(Op{OpCode::kDeleteDest, a, Dst("10.1.0.9", 1, 0)});  // ENOENT
  ops.push_back(Op{OpCode::kDeleteService, Svc("10.9.9.9", 1, kProtoTcp, false), {}});  // ESRCH
  for (int acked = 0; acked < 2; acked++) {  // every message acked; then the last only (ops fail again)
    NlBuilder batch;
    uint32_t base = s.ReserveSeq(uint32_t(ops.size()));
    for (size_t i = 0; i < ops.size(); i++) {
      bool ack = acked == 0 || i + 1 == ops.size();
      EncodeOp(batch, fam, ops[i], ack ? NLM_F_ACK : 0, base + uint32_t(i));
    }
    Record(s, batch, base + uint32_t(ops.size()) - 1, acked == 0 ? "acks-each" : "acks-last");
  }
  // A connection through 10.0.9.1:80 -> 127.0.0.1:8080, so the dest dump carries counts.
  // A connection attempt to 10.0.9.1:80 (scheduled to 127.0.0.1:8080), so the dest dump carries counts.
  if (system("node -e \"const s=require('net').connect(80,'10.0.9.1');s.on('error',()=>{});"
             "setTimeout(()=>process.exit(0),500)\"") != 0) {
    fprintf(stderr, "(no connection attempt made; counts stay 0)\n");
  }
  struct Req { uint8_t cmd; bool dump; const Service* key; const char* name; };
  Service missing = Svc("10.9.9.9", 1, kProtoTcp, false);
  for (const Req& r : {Req{IPVS_CMD_GET_SERVICE, true, nullptr, "services"}, Req{IPVS_CMD_GET_DEST, true, &a, "dests-v4"},
                       Req{IPVS_CMD_GET_DEST, true, &v6, "dests-v6"}, Req{IPVS_CMD_GET_CONFIG, false, nullptr, "config"},
                       Req{IPVS_CMD_GET_SERVICE, false, &missing, "get-missing"}}) {
    NlBuilder q;
    uint32_t qs = s.ReserveSeq(1);
    size_t qm = BeginGenlMsg(q, fam, r.cmd, IPVS_GENL_VERSION, NLM_F_REQUEST | (r.dump ? NLM_F_DUMP : NLM_F_ACK), qs);
    if (r.key) PutServiceKeyNest(q, r.key->key);
    q.EndMsg(qm);
    Record(s, q, qs, r.name);
  }
  return 0;
}
