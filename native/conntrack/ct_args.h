// Validation of conntrackDelete()'s JavaScript arguments into plain Filters. Errors are thrown
// as TypeError/RangeError naming the argument (e.g. "filters[2].origDstPort").
#pragma once
#include <napi.h>

#include <string>
#include <vector>

#include "ct_types.h"

namespace kpn::ct {

constexpr uint32_t kMaxFilters = 65536;

// False with a JavaScript exception pending.
bool ParseNetnsPath(Napi::Env env, const Napi::Value& v, std::string* out);
bool ParseFilters(Napi::Env env, const Napi::Value& v, std::vector<Filter>* out);
// Optional third argument { dumpCostEntries?: integer 0..2^31-1 }.
bool ParseOptions(Napi::Env env, const Napi::Value& v, DeleteOptions* out);

}  // namespace kpn::ct
