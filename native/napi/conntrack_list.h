// conntrackList(netnsPath, { family: 4|6, protocol: 'udp'|'sctp', max }):
//   Promise<{ flows: [{ origSrc, origSrcPort, origDst, origDstPort, replySrc, replySrcPort }],
//             truncated, received }>
// Arguments are validated synchronously (throws); the dump runs on a worker thread.
#pragma once
#include <napi.h>

namespace kpn {

Napi::Value ConntrackList(const Napi::CallbackInfo& info);

}  // namespace kpn
