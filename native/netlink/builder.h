// Builds netlink messages (nlmsghdr + nfgenmsg + attributes) into one growing byte buffer.
// Used for nftables batches and reusable for ctnetlink. Every nest length is checked against the
// u16 nla_len limit: an overflow marks the builder failed instead of writing a wrapped length.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kpn {

class NlBuilder {
 public:
  // Starts a message; returns its offset in the buffer (pass it to EndMsg).
  size_t BeginMsg(uint16_t type, uint16_t flags, uint32_t seq, uint8_t family, uint16_t resIdBe);
  void EndMsg(size_t msgOffset);

  void PutU8(uint16_t type, uint8_t v);
  void PutBe16(uint16_t type, uint16_t v);
  void PutBe32(uint16_t type, uint32_t v);
  void PutBe64(uint16_t type, uint64_t v);
  void PutStr(uint16_t type, std::string_view s);  // NUL-terminated, as the kernel's NLA_STRING wants
  void PutBytes(uint16_t type, const void* data, size_t len);

  size_t BeginNest(uint16_t type);
  void EndNest(size_t nestOffset);

  bool ok() const { return ok_; }
  size_t size() const { return buf_.size(); }
  const std::vector<uint8_t>& data() const { return buf_; }
  std::vector<uint8_t>& mutable_data() { return buf_; }
  void Reserve(size_t n) { buf_.reserve(n); }

 private:
  size_t PutAttrHeader(uint16_t type, size_t payloadLen);
  void AlignTail();
  std::vector<uint8_t> buf_;
  bool ok_ = true;
};

// Bytes an attribute with this payload occupies, header and padding included.
constexpr size_t NlAttrSpace(size_t payload) { return (4 + payload + 3) & ~size_t(3); }

}  // namespace kpn
