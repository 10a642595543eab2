// The monitor's JavaScript boundary: its constructor arguments checked into MonitorOptions, and
// its events turned into plain objects (main thread only).
#pragma once
#include <napi.h>

#include <vector>

#include "monitor_reader.h"

namespace kpn {

constexpr size_t kMaxInterest = 1024;
constexpr size_t kMinRecvBuffer = 4096, kMaxRecvBuffer = size_t(1) << 30;

// info[index]: an array of { family: 1|2|10, table: string 1..255 bytes } (1..kMaxInterest).
bool InterestArg(const Napi::CallbackInfo& info, size_t index, std::vector<nft::TableRef>* out);
// info[index]: an array of at most kMaxOwnPortIds integers in 0..2^32-1.
bool PortIdsArg(const Napi::CallbackInfo& info, size_t index, std::vector<uint32_t>* out);
// info[index]: an integer byte count in kMinRecvBuffer..kMaxRecvBuffer.
bool RecvBufferArg(const Napi::CallbackInfo& info, size_t index, size_t* out);

// [{ type: 'commit', portId, genId?, pid?, comm?, changes: [{ op, kind, family, table, name?, count, msgType? }] }
//  | { type: 'overflow' } | { type: 'error', errno, code, message }], or nullptr if JavaScript
// cannot run any more (the environment is shutting down). Never throws, never aborts.
napi_value MonitorEventsToJs(napi_env env, const std::vector<MonitorEvent>& events);

}  // namespace kpn
