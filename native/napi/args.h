// Argument checks shared by the exported functions: each throws a TypeError/RangeError naming the
// argument and returns false.
#pragma once
#include <napi.h>

#include <string>

#include "txn/types.h"

namespace kpn {

// Decodes a transaction Buffer argument (TypeError if not a Buffer, RangeError if malformed). *out
// borrows the Buffer's bytes: a caller that uses it after returning keeps a reference to the Buffer.
bool TransactionArg(const Napi::CallbackInfo& info, size_t index, const char* name, Transaction* out);
// A string argument with a length in [minLen, maxLen] and no NUL byte.
bool StringArg(const Napi::CallbackInfo& info, size_t index, const char* name, size_t minLen, size_t maxLen, std::string* out);
// An nftables family number: 1 (inet), 2 (ip) or 10 (ip6).
bool FamilyArg(const Napi::CallbackInfo& info, size_t index, const char* name, uint8_t* out);

// d is a whole number in [lo, hi] (false for NaN and infinities). Throws nothing.
bool IsIntegerIn(double d, double lo, double hi);
// v is a number and IsIntegerIn; then *out is set. Throws nothing.
bool IntegerValue(const Napi::Value& v, double lo, double hi, double* out);

}  // namespace kpn
