#include "netlink/builder.h"

#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <cstring>

namespace kpn {

namespace {
constexpr size_t kMaxAttrLen = 0xffff;
constexpr size_t kMaxMsgLen = 0xffffffffu;

void StoreU16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }
void StoreU32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
}  // namespace

void NlBuilder::AlignTail() {
  while (buf_.size() % 4 != 0) buf_.push_back(0);
}

size_t NlBuilder::BeginMsg(uint16_t type, uint16_t flags, uint32_t seq, uint8_t family,
                           uint16_t resIdBe) {
  AlignTail();
  size_t off = buf_.size();
  buf_.resize(off + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(nfgenmsg)), 0);
  nlmsghdr hdr{};
  hdr.nlmsg_type = type;
  hdr.nlmsg_flags = flags;
  hdr.nlmsg_seq = seq;
  std::memcpy(buf_.data() + off, &hdr, sizeof(hdr));
  nfgenmsg g{};
  g.nfgen_family = family;
  g.version = NFNETLINK_V0;
  g.res_id = resIdBe;
  std::memcpy(buf_.data() + off + NLMSG_HDRLEN, &g, sizeof(g));
  return off;
}

void NlBuilder::EndMsg(size_t msgOffset) {
  AlignTail();
  size_t len = buf_.size() - msgOffset;
  if (len > kMaxMsgLen) { ok_ = false; return; }
  StoreU32(buf_.data() + msgOffset, static_cast<uint32_t>(len));
}

size_t NlBuilder::PutAttrHeader(uint16_t type, size_t payloadLen) {
  AlignTail();
  size_t off = buf_.size();
  if (4 + payloadLen > kMaxAttrLen) { ok_ = false; payloadLen = 0; }
  buf_.resize(off + 4, 0);
  StoreU16(buf_.data() + off, static_cast<uint16_t>(4 + payloadLen));
  StoreU16(buf_.data() + off + 2, type);
  return off;
}

void NlBuilder::PutBytes(uint16_t type, const void* data, size_t len) {
  PutAttrHeader(type, len);
  if (!ok_) return;
  const uint8_t* p = static_cast<const uint8_t*>(data);
  buf_.insert(buf_.end(), p, p + len);
  AlignTail();
}

void NlBuilder::PutU8(uint16_t type, uint8_t v) { PutBytes(type, &v, 1); }

void NlBuilder::PutBe16(uint16_t type, uint16_t v) {
  uint8_t b[2] = {uint8_t(v >> 8), uint8_t(v)};
  PutBytes(type, b, 2);
}

void NlBuilder::PutBe32(uint16_t type, uint32_t v) {
  uint8_t b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
  PutBytes(type, b, 4);
}

void NlBuilder::PutBe64(uint16_t type, uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = uint8_t(v >> (56 - 8 * i));
  PutBytes(type, b, 8);
}

void NlBuilder::PutStr(uint16_t type, std::string_view s) {
  PutAttrHeader(type, s.size() + 1);
  if (!ok_) return;
  buf_.insert(buf_.end(), s.begin(), s.end());
  buf_.push_back(0);
  AlignTail();
}

size_t NlBuilder::BeginNest(uint16_t type) { return PutAttrHeader(type | NLA_F_NESTED, 0); }

void NlBuilder::EndNest(size_t nestOffset) {
  AlignTail();
  size_t len = buf_.size() - nestOffset;
  if (len > kMaxAttrLen) { ok_ = false; return; }
  StoreU16(buf_.data() + nestOffset, static_cast<uint16_t>(len));
}

}  // namespace kpn
