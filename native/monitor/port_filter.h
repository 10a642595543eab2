// A classic BPF socket filter that drops, in the kernel, the notification datagrams of our own
// commits: each datagram holds the messages of one commit only, all with the committing socket's
// port id in nlmsg_pid, so the first message's nlmsg_pid decides. Our own full syncs announce
// hundreds of thousands of changes; this way none of them wakes the reader or fills its buffer.
#pragma once
#include <linux/filter.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kpn {

// Conditional jumps reach at most 255 instructions ahead, which bounds the list.
constexpr size_t kMaxOwnPortIds = 64;

// The program: load nlmsg_pid; drop on a match with any id; accept everything else. Datagrams too
// short to hold a header are dropped (the load fails). `ids` at most kMaxOwnPortIds.
std::vector<sock_filter> BuildPortFilter(const std::vector<uint32_t>& ids);

// Attaches (or replaces: the kernel swaps programs atomically) the filter on `fd`. Returns 0 or errno.
int AttachPortFilter(int fd, const std::vector<uint32_t>& ids);

}  // namespace kpn
