// NftMonitor's (and groupNotifications') arguments, checked into plain values: each throws a
// TypeError/RangeError naming the argument and returns false.
#pragma once
#include <napi.h>

#include <vector>

#include "nft/notify_commits.h"

namespace kpn {

constexpr size_t kMaxInterest = 1024;
constexpr size_t kMinRecvBuffer = 4096, kMaxRecvBuffer = size_t(1) << 30;

// info[index]: an array of { family: 1|2|10, table: string 1..255 bytes } (1..kMaxInterest).
bool InterestArg(const Napi::CallbackInfo& info, size_t index, std::vector<nft::TableRef>* out);
// info[index]: an array of at most kMaxOwnPortIds integers in 0..2^32-1.
bool PortIdsArg(const Napi::CallbackInfo& info, size_t index, std::vector<uint32_t>* out);
// info[index]: an integer byte count in kMinRecvBuffer..kMaxRecvBuffer.
bool RecvBufferArg(const Napi::CallbackInfo& info, size_t index, size_t* out);

}  // namespace kpn
