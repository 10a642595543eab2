#include "ipvs/requests.h"

#include <linux/genetlink.h>
#include <linux/ip_vs.h>
#include <linux/netlink.h>

#include <cerrno>

#include "ipvs/encode.h"
#include "ipvs/replies.h"

namespace kpn {
namespace ipvs {

namespace {

RequestError Malformed(const char* what) { return RequestError{EPROTO, std::string("malformed ") + what + " reply"}; }

// A request with no attributes but `fill`'s; `dump` asks for NLM_F_DUMP, else NLM_F_ACK.
template <typename Fill>
RequestError Exchange(NetlinkSocket& sock, uint16_t familyId, uint8_t cmd, uint8_t version, bool dump, Fill fill,
                      const MsgHandler& onMsg) {
  NlBuilder b;
  uint32_t seq = sock.ReserveSeq(1);
  size_t msg = BeginGenlMsg(b, familyId, cmd, version, NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK), seq);
  fill(b);
  b.EndMsg(msg);
  return dump ? RunDump(sock, b.data(), seq, onMsg) : RunRequest(sock, b.data(), seq, onMsg);
}

// An Exchange whose every reply `parse(payload, len)` must accept: one it refuses makes the result
// a malformed-`what` error (unless the kernel reported an error).
template <typename Fill, typename Parse>
RequestError ParsedExchange(NetlinkSocket& sock, uint16_t familyId, uint8_t cmd, uint8_t version, bool dump, Fill fill,
                            const char* what, Parse parse) {
  bool bad = false;
  RequestError err = Exchange(sock, familyId, cmd, version, dump, fill,
                              [&](const nlmsghdr&, const uint8_t* p, size_t n) { if (!parse(p, n)) bad = true; });
  if (err.errnum == 0 && bad) return Malformed(what);
  return err;
}

void NoAttrs(NlBuilder&) {}
void NoReply(const nlmsghdr&, const uint8_t*, size_t) {}

// The destinations of a service known to exist (a missing one gives an empty dump).
RequestError DestDump(NetlinkSocket& sock, uint16_t familyId, const ServiceKey& key, std::vector<DestEntry>* out) {
  out->clear();
  return ParsedExchange(sock, familyId, IPVS_CMD_GET_DEST, IPVS_GENL_VERSION, true,
                        [&](NlBuilder& b) { PutServiceKeyNest(b, key); }, "destination",
                        [&](const uint8_t* p, size_t n) {
                          DestEntry d;
                          if (!ParseDestMsg(p, n, key.addr.af, &d)) return false;
                          out->push_back(d);
                          return true;
                        });
}

}  // namespace

RequestError ResolveFamily(NetlinkSocket& sock, uint16_t* familyId) {
  bool parsed = false;
  auto fill = [](NlBuilder& b) { b.PutStr(CTRL_ATTR_FAMILY_NAME, IPVS_GENL_NAME); };
  RequestError err = ParsedExchange(sock, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, false, fill, "generic netlink family",
                                    [&](const uint8_t* p, size_t n) {
                                      bool ok = ParseFamilyId(p, n, familyId);
                                      parsed = parsed || ok;
                                      return ok;
                                    });
  if (err.errnum == ENOENT) {
    err.message = "the kernel has no IPVS (ip_vs module): generic netlink family \"IPVS\" not found";
  }
  if (err.errnum == 0 && !parsed) return Malformed("generic netlink family");
  return err;
}

RequestError DumpDests(NetlinkSocket& sock, uint16_t familyId, const ServiceKey& key, std::vector<DestEntry>* out) {
  out->clear();
  // A dest dump of a missing service is an empty dump, not an error: ask for the service first.
  RequestError err = ParsedExchange(sock, familyId, IPVS_CMD_GET_SERVICE, IPVS_GENL_VERSION, false,
                                    [&](NlBuilder& b) { PutServiceKeyNest(b, key); }, "service",
                                    [&](const uint8_t* p, size_t n) { ServiceEntry e; return ParseServiceMsg(p, n, &e); });
  if (err.errnum) return err;
  return DestDump(sock, familyId, key, out);
}

RequestError DumpAll(NetlinkSocket& sock, uint16_t familyId, std::vector<ServiceState>* out) {
  out->clear();
  RequestError err = ParsedExchange(sock, familyId, IPVS_CMD_GET_SERVICE, IPVS_GENL_VERSION, true, NoAttrs, "service",
                                    [&](const uint8_t* p, size_t n) {
                                      ServiceEntry e;
                                      if (!ParseServiceMsg(p, n, &e)) return false;
                                      if (e.fwmark == 0) out->push_back(ServiceState{e.service, {}});
                                      return true;
                                    });
  if (err.errnum) return err;
  for (auto& s : *out) {
    // (A service deleted meanwhile by someone else gives an empty dump.)
    err = DestDump(sock, familyId, s.service.key, &s.dests);
    if (err.errnum) return err;
  }
  return RequestError{};
}

RequestError GetTimeouts(NetlinkSocket& sock, uint16_t familyId, Timeouts* out) {
  bool parsed = false;
  RequestError err = ParsedExchange(sock, familyId, IPVS_CMD_GET_CONFIG, IPVS_GENL_VERSION, false, NoAttrs, "configuration",
                                    [&](const uint8_t* p, size_t n) {
                                      bool ok = ParseConfigMsg(p, n, out);
                                      parsed = parsed || ok;
                                      return ok;
                                    });
  if (err.errnum == 0 && !parsed) return Malformed("configuration");
  return err;
}

RequestError SetTimeouts(NetlinkSocket& sock, uint16_t familyId, const Timeouts& t) {
  auto fill = [&](NlBuilder& b) {
    b.PutBytes(IPVS_CMD_ATTR_TIMEOUT_TCP, &t.tcp, 4);
    b.PutBytes(IPVS_CMD_ATTR_TIMEOUT_TCP_FIN, &t.tcpFin, 4);
    b.PutBytes(IPVS_CMD_ATTR_TIMEOUT_UDP, &t.udp, 4);
  };
  return Exchange(sock, familyId, IPVS_CMD_SET_CONFIG, IPVS_GENL_VERSION, false, fill, NoReply);
}

}  // namespace ipvs
}  // namespace kpn
