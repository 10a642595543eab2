// conntrackStats(netnsPath): Promise<{ entries, maxEntries, cpus, counters: { found, invalid,
//   insert, insert_failed, drop, early_drop, error, search_restart, clash_resolve, chain_toolong } }>
//   (each counter summed over the CPUs; a counter the kernel does not send is absent). The two
//   requests run on a worker thread.
// decodeConntrackStats(cpuReply: Buffer, globalReply: Buffer): the same object from replies given
//   as bytes, synchronously (tests); throws an errno Error (EPROTO, or the kernel's errno) as the
//   read would reject.
#pragma once
#include <napi.h>

namespace kpn {

Napi::Value ConntrackStats(const Napi::CallbackInfo& info);
Napi::Value DecodeConntrackStats(const Napi::CallbackInfo& info);

}  // namespace kpn
