// conntrackDelete(netnsPath, filters, options?):
//   Promise<{ deleted, deletedByProtocol: { udp, tcp, sctp }, notFound, failed, received, matched, dumps, tableEntries, firstFailErrno?,
//             failedFilters? }>
// Arguments are validated synchronously (throws); the netlink work runs on a worker thread.
#pragma once
#include <napi.h>

namespace kpn {

Napi::Value ConntrackDelete(const Napi::CallbackInfo& info);

}  // namespace kpn
