// Small validators shared by the op and expression decoders: each reads one field and checks it.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "txn/wire_reader.h"

namespace kpn {

constexpr size_t kNameMax = 255;  // nft's limit is 256 including the NUL
constexpr size_t kDataMax = 64;   // NFT_DATA_VALUE_MAXLEN

// Register numbers: 0 verdict, 1..4 the 16-byte registers, 8..23 the 32-bit ones.
inline bool IsValidReg(uint32_t r) { return r <= 4 || (r >= 8 && r <= 23); }

inline bool ReadReg(WireReader& r, const char* field, uint32_t* v) {
  if (!r.U32(field, v)) return false;
  if (!IsValidReg(*v)) {
    return r.FailHere(field, "register " + std::to_string(*v) + " is not one of 0, 1..4, 8..23");
  }
  return true;
}

// Like ReadReg but 0 means "absent" (nat/masq/dynset optional registers).
inline bool ReadOptReg(WireReader& r, const char* field, uint32_t* v) { return ReadReg(r, field, v); }

inline bool ReadU32Max(WireReader& r, const char* field, uint32_t* v, uint32_t max) {
  if (!r.U32(field, v)) return false;
  if (*v > max) {
    return r.FailHere(field, "value " + std::to_string(*v) + " is above the maximum " + std::to_string(max));
  }
  return true;
}

inline bool ReadU8Max(WireReader& r, const char* field, uint8_t* v, uint8_t max) {
  if (!r.U8(field, v)) return false;
  if (*v > max) {
    return r.FailHere(field, "value " + std::to_string(*v) + " is above the maximum " + std::to_string(max));
  }
  return true;
}

inline bool ReadFlags32(WireReader& r, const char* field, uint32_t* v, uint32_t mask) {
  if (!r.U32(field, v)) return false;
  if (*v & ~mask) {
    return r.FailHere(field, "unknown flag bits 0x" + [](uint32_t x) {
      char b[16]; snprintf(b, sizeof b, "%x", x); return std::string(b); }(*v & ~mask));
  }
  return true;
}

inline bool ReadName(WireReader& r, const char* field, std::string* s) {
  return r.Str(field, s, 1, kNameMax);
}

// Set ids: 0 = by name only; otherwise below kAutoSetIdBase (that range is C++'s own).
inline bool ReadSetId(WireReader& r, const char* field, uint32_t* v) {
  if (!r.U32(field, v)) return false;
  if (*v >= kAutoSetIdBase) return r.FailHere(field, "set ids must be below 0x80000000");
  return true;
}

// Verdict: i32 code, str chain (non-empty exactly for jump/goto).
bool ReadVerdict(WireReader& r, Verdict* v);
// The same, the chain a view into the buffer (elements: no copy).
bool ReadVerdictView(WireReader& r, int32_t* code, std::string_view* chain);

}  // namespace kpn
