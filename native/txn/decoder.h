// Validating decoder for the transaction buffer (docs/wire-format.md). Pure C++ (no N-API) so the
// fuzz target links it alone. Nothing in the buffer is trusted: every length, count, enum,
// register and string is checked; the first problem is reported with its byte offset and field.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "txn/types.h"

namespace kpn {

struct DecodeError {
  size_t offset = 0;
  std::string field;    // e.g. "ops[2].exprs[0].sreg"
  std::string message;  // e.g. "register 5 is not one of 0, 1..4, 8..23"
  std::string ToString() const;
};

// Returns true and fills *out, or returns false and fills *err.
bool DecodeTransaction(const uint8_t* data, size_t len, Transaction* out, DecodeError* err);

constexpr uint32_t kTxnMagic = 0x544e504b;
constexpr uint16_t kTxnVersion = 1;

}  // namespace kpn
