// Bounds-checked little-endian reader over the transaction buffer. Every read names its field so
// an error can say where and what; reads never go past the current limit (the op body's end).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "txn/decoder.h"

namespace kpn {

class WireReader {
 public:
  WireReader(const uint8_t* data, size_t len) : data_(data), len_(len), limit_(len) {}

  bool U8(const char* field, uint8_t* v);
  bool U16(const char* field, uint16_t* v);
  bool U32(const char* field, uint32_t* v);
  bool I32(const char* field, int32_t* v);
  bool U64(const char* field, uint64_t* v);
  // str: u16 length then UTF-8 bytes without NUL; length must be in [minLen, maxLen].
  bool Str(const char* field, std::string* s, size_t minLen, size_t maxLen);
  bool Blob(const char* field, Bytes* b, size_t minLen, size_t maxLen);
  // The same checks, without a copy: the views point into the buffer.
  bool Str(const char* field, std::string_view* s, size_t minLen, size_t maxLen);
  bool Blob(const char* field, ByteView* b, size_t minLen, size_t maxLen);

  // Records an error at `offset` for `field` (prefixed with the current op/expr/element path).
  bool Fail(size_t offset, const char* field, const std::string& message);
  bool FailHere(const char* field, const std::string& message) { return Fail(last_, field, message); }

  size_t pos() const { return pos_; }
  // Moves to `pos` (at most the limit): where an op starts, to read it again.
  void Seek(size_t pos) { pos_ = last_ = pos < limit_ ? pos : limit_; }
  size_t remaining() const { return limit_ - pos_; }
  size_t limit() const { return limit_; }
  void set_limit(size_t limit) { limit_ = limit; }
  size_t total() const { return len_; }
  const uint8_t* data() const { return data_; }

  // Path context for error messages (-1 = not inside one).
  long op = -1, expr = -1, elem = -1;
  DecodeError error;

 private:
  bool Need(const char* field, size_t n);
  const uint8_t* data_;
  size_t len_, limit_, pos_ = 0, last_ = 0;
};

bool IsValidUtf8(const uint8_t* p, size_t n);

}  // namespace kpn
