// IPVS results as JavaScript values (the shapes src/native/addon/addon-types.ts declares: RawIpvs*).
#pragma once
#include <napi.h>

#include <vector>

#include "ipvs/apply.h"
#include "ipvs/requests.h"

namespace kpn {

Napi::Object ApplyResultToJs(Napi::Env env, const ipvs::ApplyResult& r);
Napi::Array ServicesToJs(Napi::Env env, const std::vector<ipvs::ServiceState>& services);
Napi::Array DestsToJs(Napi::Env env, const std::vector<ipvs::DestEntry>& dests);
Napi::Object TimeoutsToJs(Napi::Env env, const ipvs::Timeouts& t);

}  // namespace kpn
