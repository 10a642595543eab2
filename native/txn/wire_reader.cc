#include "txn/wire_reader.h"

#include <cstring>

namespace kpn {

std::string DecodeError::ToString() const {
  return "invalid transaction buffer at byte " + std::to_string(offset) + ", field " + field +
         ": " + message;
}

bool WireReader::Fail(size_t offset, const char* field, const std::string& message) {
  std::string path;
  if (op >= 0) path += "ops[" + std::to_string(op) + "].";
  if (expr >= 0) path += "exprs[" + std::to_string(expr) + "].";
  if (elem >= 0) path += "elements[" + std::to_string(elem) + "].";
  error.offset = offset;
  error.field = path + field;
  error.message = message;
  return false;
}

bool WireReader::Need(const char* field, size_t n) {
  last_ = pos_;
  if (n > limit_ - pos_) {
    const char* scope = op >= 0 ? "in op body" : "in buffer";
    return Fail(pos_, field, "truncated: needs " + std::to_string(n) + " bytes, " +
                                 std::to_string(limit_ - pos_) + " left " + scope);
  }
  return true;
}

bool WireReader::U8(const char* field, uint8_t* v) {
  if (!Need(field, 1)) return false;
  *v = data_[pos_++];
  return true;
}

bool WireReader::U16(const char* field, uint16_t* v) {
  if (!Need(field, 2)) return false;
  *v = uint16_t(data_[pos_] | (data_[pos_ + 1] << 8));
  pos_ += 2;
  return true;
}

bool WireReader::U32(const char* field, uint32_t* v) {
  if (!Need(field, 4)) return false;
  uint32_t r = 0;
  for (int i = 3; i >= 0; i--) r = (r << 8) | data_[pos_ + i];
  *v = r;
  pos_ += 4;
  return true;
}

bool WireReader::I32(const char* field, int32_t* v) {
  uint32_t u;
  if (!U32(field, &u)) return false;
  std::memcpy(v, &u, 4);
  return true;
}

bool WireReader::U64(const char* field, uint64_t* v) {
  if (!Need(field, 8)) return false;
  uint64_t r = 0;
  for (int i = 7; i >= 0; i--) r = (r << 8) | data_[pos_ + i];
  *v = r;
  pos_ += 8;
  return true;
}

bool WireReader::Blob(const char* field, ByteView* b, size_t minLen, size_t maxLen) {
  size_t start = pos_;
  uint16_t n;
  if (!U16(field, &n)) return false;
  if (n < minLen || n > maxLen) {
    return Fail(start, field, "length " + std::to_string(n) + " is outside " +
                                  std::to_string(minLen) + ".." + std::to_string(maxLen));
  }
  if (!Need(field, n)) return false;
  *b = ByteView{data_ + pos_, n};
  pos_ += n;
  last_ = start;
  return true;
}

bool WireReader::Blob(const char* field, Bytes* b, size_t minLen, size_t maxLen) {
  ByteView v;
  if (!Blob(field, &v, minLen, maxLen)) return false;
  b->assign(v.data, v.data + v.size);
  return true;
}

bool WireReader::Str(const char* field, std::string_view* s, size_t minLen, size_t maxLen) {
  size_t start = pos_;
  uint16_t n;
  if (!U16(field, &n)) return false;
  if (n < minLen || n > maxLen) {
    return Fail(start, field, "string length " + std::to_string(n) + " is outside " +
                                  std::to_string(minLen) + ".." + std::to_string(maxLen));
  }
  if (!Need(field, n)) return false;
  const uint8_t* p = data_ + pos_;
  if (std::memchr(p, 0, n) != nullptr) return Fail(start, field, "string contains a NUL byte");
  if (!IsValidUtf8(p, n)) return Fail(start, field, "string is not valid UTF-8");
  *s = std::string_view(reinterpret_cast<const char*>(p), n);
  pos_ += n;
  last_ = start;
  return true;
}

bool WireReader::Str(const char* field, std::string* s, size_t minLen, size_t maxLen) {
  std::string_view v;
  if (!Str(field, &v, minLen, maxLen)) return false;
  s->assign(v.data(), v.size());
  return true;
}

// Strict UTF-8: no overlongs, no surrogates, nothing above U+10FFFF.
bool IsValidUtf8(const uint8_t* p, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t c = p[i];
    size_t extra;
    uint32_t cp, min;
    if (c < 0x80) { i++; continue; }
    if ((c & 0xe0) == 0xc0) { extra = 1; cp = c & 0x1f; min = 0x80; }
    else if ((c & 0xf0) == 0xe0) { extra = 2; cp = c & 0x0f; min = 0x800; }
    else if ((c & 0xf8) == 0xf0) { extra = 3; cp = c & 0x07; min = 0x10000; }
    else return false;
    if (extra > n - i - 1) return false;
    for (size_t k = 1; k <= extra; k++) {
      if ((p[i + k] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += extra + 1;
  }
  return true;
}

}  // namespace kpn
