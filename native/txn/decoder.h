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

// Checks every op of the buffer (each decoded, then dropped) and returns true with *out indexing
// them (out->wire = data: keep it alive and unchanged while *out is used), or false with *err.
bool DecodeTransaction(const uint8_t* data, size_t len, Transaction* out, DecodeError* err);

// Op i of txn: txn.ops[i] for a transaction built in code, else the buffer's op decoded into
// *scratch (reset first), checked as DecodeTransaction checked it. nullptr when i is out of range or
// the op no longer decodes (its buffer changed since: never trusted).
const Op* OpAt(const Transaction& txn, size_t i, Op* scratch);

constexpr uint32_t kTxnMagic = 0x544e504b;
constexpr uint16_t kTxnVersion = 1;

}  // namespace kpn
