// The monitor's events as JavaScript values (main thread only).
#pragma once
#include <napi.h>

#include <vector>

#include "monitor/monitor_reader.h"

namespace kpn {

// [{ type: 'commit', portId, genId?, pid?, comm?, changes: [{ op, kind, family, table, name?, count, msgType? }] }
//  | { type: 'overflow' } | { type: 'error', errno, code, message }], or nullptr if JavaScript
// cannot run any more (the environment is shutting down). Never throws, never aborts.
napi_value MonitorEventsToJs(napi_env env, const std::vector<MonitorEvent>& events);

}  // namespace kpn
