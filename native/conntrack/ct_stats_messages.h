// ctnetlink statistics: the two requests (IPCTNL_MSG_CT_GET_STATS_CPU, a dump with one message per
// possible CPU; IPCTNL_MSG_CT_GET_STATS, one message with the table's entry count and limit) and
// the pure decoders of their replies (fuzzed, native/fuzz/fuzz_ct_messages.cc). Every attribute
// length is checked; attributes this code does not know are skipped, so a newer kernel's extra
// counters do no harm.
#pragma once
#include <cstddef>
#include <cstdint>

#include "conntrack/ct_types.h"
#include "netlink/builder.h"

namespace kpn::ct {

void AppendStatsCpuRequest(NlBuilder& b, uint32_t seq);
void AppendStatsGlobalRequest(NlBuilder& b, uint32_t seq);

// Where one message of a reply leaves the read: keep reading, complete, or failed (failure set).
enum class StatsStep { kMore, kDone, kFailed };

// One message of the per-CPU dump's reply: an IPCTNL_MSG_CT_GET_STATS_CPU message adds its
// counters to out->counters and counts a CPU; NLMSG_DONE completes; NLMSG_ERROR (or a DONE
// carrying an error) fails with the kernel's errno; a malformed message fails with EPROTO.
// Messages of other types are skipped.
StatsStep FeedCpuStats(uint16_t type, const uint8_t* body, size_t len, Stats* out, Failure* failure);

// One message of the global request's reply: an IPCTNL_MSG_CT_GET_STATS message sets
// out->entries and out->maxEntries (both required) and completes; NLMSG_ERROR fails.
StatsStep FeedGlobalStats(uint16_t type, const uint8_t* body, size_t len, Stats* out, Failure* failure);

// Both replies given as bytes (whole datagrams, as the kernel sent them), decoded as a read does:
// for tests and the fuzz target. False (failure set) when either reply fails or ends early.
bool DecodeStatsReplies(const uint8_t* cpu, size_t cpuLen, const uint8_t* global, size_t globalLen,
                        Stats* out, Failure* failure);

}  // namespace kpn::ct
