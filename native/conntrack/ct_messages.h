// ctnetlink message encoding (filtered dump request, delete-by-tuple) and decoding of the
// entries a dump returns.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../nl_builder.h"
#include "ct_types.h"

namespace kpn::ct {

// IPCTNL_MSG_CT_GET with NLM_F_DUMP and a CTA_FILTER: the kernel returns only matching entries.
void AppendDumpRequest(NlBuilder& b, const Filter& f, uint32_t seq);

// IPCTNL_MSG_CT_DELETE of exactly this entry: its original tuple, zone and id (so an entry that
// was replaced since the dump, reusing the tuple, is left alone).
void AppendDelete(NlBuilder& b, const Entry& e, uint32_t seq);

// Decodes one IPCTNL_MSG_CT_NEW message body (after the nlmsghdr: nfgenmsg + attributes).
// False when it is malformed or lacks an original tuple.
bool ParseEntry(const uint8_t* body, size_t len, Entry* out);

// Every field the filter names equals the entry's. Checked in user space as well because the
// kernel's tuple filter compares ports only for TCP and UDP (not SCTP), and kernels before 5.8
// ignore CTA_FILTER altogether.
bool Matches(const Filter& f, const Entry& e);

}  // namespace kpn::ct
