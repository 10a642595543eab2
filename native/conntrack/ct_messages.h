// ctnetlink message encoding (filtered dump requests, delete-by-tuple) and decoding of what the
// kernel sends back (entries, stats, error codes). The decoders are pure and fuzzed
// (native/fuzz/fuzz_ct_messages.cc): every attribute length is checked.
#pragma once
#include <cstddef>
#include <cstdint>

#include "conntrack/ct_types.h"
#include "netlink/builder.h"

namespace kpn::ct {

// IPCTNL_MSG_CT_GET with NLM_F_DUMP and a CTA_FILTER: the kernel returns only matching entries.
void AppendDumpRequest(NlBuilder& b, const Filter& f, uint32_t seq);

// IPCTNL_MSG_CT_GET dump of one family + protocol, asking the kernel for IPS_DST_NAT entries only.
void AppendListRequest(NlBuilder& b, uint8_t family, uint8_t proto, uint32_t seq);

// IPCTNL_MSG_CT_DELETE of exactly this entry: its original tuple, zone and id (so an entry that
// was replaced since the dump, reusing the tuple, is left alone).
void AppendDelete(NlBuilder& b, const Entry& e, uint32_t seq);

// Decodes one IPCTNL_MSG_CT_NEW message body (after the nlmsghdr: nfgenmsg + attributes).
// False when it is malformed or lacks an original tuple.
bool ParseEntry(const uint8_t* body, size_t len, Entry* out);

enum class FlowKind { kDnat, kOther, kMalformed };

// One IPCTNL_MSG_CT_NEW message body -> a DnatFlow when it is an entry of `family`/`proto` with
// IPS_DST_NAT (kDnat); kOther for a well-formed entry that is not (older kernels ignore the
// status filter); kMalformed when it cannot be decoded or a DNATed entry lacks a tuple field.
FlowKind ParseDnatFlow(const uint8_t* body, size_t len, uint8_t family, uint8_t proto, DnatFlow* out);

// CTA_STATS_GLOBAL_ENTRIES of an IPCTNL_MSG_CT_GET_STATS reply body, or -1 when absent/malformed.
int64_t ParseStatsEntries(const uint8_t* body, size_t len);

// The (negative) errno an NLMSG_ERROR or NLMSG_DONE body starts with; 0 when too short, -EPROTO
// when it is not 0 or -errno.
int ReplyErrorCode(const uint8_t* body, size_t len);

// Every field the filter names equals the entry's. Checked in user space as well because the
// kernel's tuple filter compares ports only for TCP and UDP (not SCTP), and kernels before 5.8
// ignore CTA_FILTER altogether.
bool Matches(const Filter& f, const Entry& e);

}  // namespace kpn::ct
