#include "ipvs/op_decoder.h"

#include <linux/ip_vs.h>

#include "txn/wire_reader.h"

namespace kpn {
namespace ipvs {

namespace {

// The op count cannot exceed what the buffer could hold: the smallest op (a v4 deleteService) is 9 bytes.
constexpr size_t kMinOpBytes = 9;

// u8 family (4 or 6), then the address: 4 or 16 bytes by family.
bool ReadAddr(WireReader& r, const std::string& prefix, Addr* a) {
  std::string famField = prefix + ".family", addrField = prefix + ".address";
  uint8_t fam;
  if (!r.U8(famField.c_str(), &fam)) return false;
  if (fam != 4 && fam != 6) return r.FailHere(famField.c_str(), "family " + std::to_string(fam) + " is not 4 or 6");
  a->af = fam == 4 ? kAfInet : kAfInet6;
  size_t n = a->size();
  if (r.remaining() < n) {
    return r.Fail(r.pos(), addrField.c_str(), "truncated: an IPv" + std::to_string(fam) + " address needs " +
                                                  std::to_string(n) + " bytes, " + std::to_string(r.remaining()) + " left");
  }
  for (size_t i = 0; i < n; i++) r.U8(addrField.c_str(), &a->bytes[i]);
  return true;
}

// u8 protocol, u16 port, u8 family, address.
bool ReadServiceKey(WireReader& r, ServiceKey* k) {
  uint8_t proto;
  if (!r.U8("service.protocol", &proto)) return false;
  if (proto != kProtoTcp && proto != kProtoUdp && proto != kProtoSctp) {
    return r.FailHere("service.protocol", "protocol " + std::to_string(proto) + " is not 6 (TCP), 17 (UDP) or 132 (SCTP)");
  }
  k->protocol = proto;
  return r.U16("service.port", &k->port) && ReadAddr(r, "service", &k->addr);
}

// u8 nameLen (1..15), name (printable ASCII), u32 flags, u32 timeout, u8 prefixLength.
bool ReadServiceBody(WireReader& r, Service* s) {
  uint8_t n;
  if (!r.U8("service.scheduler", &n)) return false;
  if (n < 1 || n > kMaxSchedName) {
    return r.FailHere("service.scheduler", "name length " + std::to_string(n) + " is not in 1.." + std::to_string(kMaxSchedName));
  }
  s->scheduler.resize(n);
  for (size_t i = 0; i < n; i++) {
    uint8_t c;
    if (!r.U8("service.scheduler", &c)) return false;
    if (c < 0x21 || c > 0x7e) return r.FailHere("service.scheduler", "byte " + std::to_string(c) + " is not printable ASCII");
    s->scheduler[i] = char(c);
  }
  if (!r.U32("service.flags", &s->flags) || !r.U32("service.timeout", &s->timeout) ||
      !r.U8("service.prefixLength", &s->prefixLength)) {
    return false;
  }
  bool v4 = s->key.addr.af == kAfInet;
  uint8_t lo = v4 ? 0 : 1, hi = v4 ? 32 : 128;
  if (s->prefixLength < lo || s->prefixLength > hi) {
    return r.FailHere("service.prefixLength", "prefix length " + std::to_string(s->prefixLength) + " is not in " +
                                                  std::to_string(lo) + ".." + std::to_string(hi) + " for IPv" + (v4 ? "4" : "6"));
  }
  return true;
}

// u16 port, u8 family, address.
bool ReadDestKey(WireReader& r, DestKey* k) { return r.U16("dest.port", &k->port) && ReadAddr(r, "dest", &k->addr); }

// u32 weight (0..INT32_MAX), u8 forward (IP_VS_CONN_F_MASQ..IP_VS_CONN_F_BYPASS).
bool ReadDestBody(WireReader& r, Dest* d) {
  if (!r.U32("dest.weight", &d->weight)) return false;
  if (d->weight > 0x7fffffffu) return r.FailHere("dest.weight", "weight " + std::to_string(d->weight) + " is above 2147483647");
  uint8_t fwd;
  if (!r.U8("dest.forward", &fwd)) return false;
  if (fwd > IP_VS_CONN_F_BYPASS) return r.FailHere("dest.forward", "forwarding method " + std::to_string(fwd) + " is not in 0..4");
  d->forward = fwd;
  return true;
}

bool ReadOp(WireReader& r, Op* op) {
  uint8_t code;
  if (!r.U8("opcode", &code)) return false;
  if (code < uint8_t(OpCode::kAddService) || code > uint8_t(OpCode::kDeleteDest)) {
    return r.FailHere("opcode", "opcode " + std::to_string(code) + " is not in 1..6");
  }
  op->code = OpCode(code);
  if (!ReadServiceKey(r, &op->service.key)) return false;
  switch (op->code) {
    case OpCode::kAddService:
    case OpCode::kEditService: return ReadServiceBody(r, &op->service);
    case OpCode::kDeleteService: return true;
    case OpCode::kAddDest:
    case OpCode::kEditDest: return ReadDestKey(r, &op->dest.key) && ReadDestBody(r, &op->dest);
    case OpCode::kDeleteDest: return ReadDestKey(r, &op->dest.key);
  }
  return false;
}

bool ReadHeader(WireReader& r, uint32_t* count) {
  uint32_t magic;
  uint16_t version, reserved;
  if (!r.U32("magic", &magic)) return false;
  if (magic != kOpsMagic) return r.FailHere("magic", "not an IPVS op buffer (magic " + std::to_string(magic) + ")");
  if (!r.U16("version", &version)) return false;
  if (version != kOpsVersion) return r.FailHere("version", "version " + std::to_string(version) + " is not 1");
  if (!r.U16("reserved", &reserved)) return false;
  if (reserved != 0) return r.FailHere("reserved", "must be 0");
  if (!r.U32("opCount", count)) return false;
  if (*count > r.remaining() / kMinOpBytes) {
    return r.FailHere("opCount", std::to_string(*count) + " ops cannot fit in the " + std::to_string(r.remaining()) + " bytes left");
  }
  return true;
}

}  // namespace

bool DecodeOps(const uint8_t* data, size_t len, std::vector<Op>* out, DecodeError* err) {
  WireReader r(data, len);
  uint32_t count;
  out->clear();
  if (!ReadHeader(r, &count)) return *err = r.error, false;
  out->resize(count);
  for (uint32_t i = 0; i < count; i++) {
    r.op = long(i);
    if (!ReadOp(r, &(*out)[i])) return *err = r.error, false;
  }
  r.op = -1;
  if (r.remaining() != 0) {
    r.Fail(r.pos(), "end", std::to_string(r.remaining()) + " bytes after the last op");
    return *err = r.error, false;
  }
  return true;
}

bool DecodeServiceKey(const uint8_t* data, size_t len, ServiceKey* out, DecodeError* err) {
  WireReader r(data, len);
  if (!ReadServiceKey(r, out)) return *err = r.error, false;
  if (r.remaining() != 0) {
    r.Fail(r.pos(), "end", std::to_string(r.remaining()) + " bytes after the service key");
    return *err = r.error, false;
  }
  return true;
}

std::string DescribeDecodeError(const DecodeError& e) {
  return "invalid IPVS op buffer at byte " + std::to_string(e.offset) + ", field " + e.field + ": " + e.message;
}

}  // namespace ipvs
}  // namespace kpn
