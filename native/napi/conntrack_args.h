// Validation of conntrackDelete()'s and conntrackList()'s JavaScript arguments into plain structs. Errors are thrown
// as TypeError/RangeError naming the argument (e.g. "filters[2].origDstPort").
#pragma once
#include <napi.h>

#include <string>
#include <vector>

#include "conntrack/ct_types.h"

namespace kpn {

constexpr uint32_t kMaxFilters = 65536;
// Upper bound of conntrackList's max (each flow becomes a JavaScript object).
constexpr uint32_t kMaxListed = 1u << 20;

// False with a JavaScript exception pending.
bool NetnsPathArg(Napi::Env env, const Napi::Value& v, std::string* out);
bool FiltersArg(Napi::Env env, const Napi::Value& v, std::vector<ct::Filter>* out);
// Optional third argument { dumpCostEntries?: integer 0..2^31-1 }.
bool DeleteOptionsArg(Napi::Env env, const Napi::Value& v, ct::DeleteOptions* out);
// conntrackList's second argument { family: 4|6, protocol: 'udp'|'sctp', max: 1..kMaxListed }.
bool ListRequestArg(Napi::Env env, const Napi::Value& v, ct::ListRequest* out);

}  // namespace kpn
