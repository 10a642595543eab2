// Sends one transaction as one atomic nfnetlink batch and collects every error the kernel reports.
//
// Why ONE sendmsg: the kernel (net/netfilter/nfnetlink.c, nfnetlink_rcv -> nfnetlink_rcv_batch)
// processes a batch inside the single skb that carries NFNL_MSG_BATCH_BEGIN. It walks the
// messages of that skb only; if the skb ends before NFNL_MSG_BATCH_END, the status lacks
// NFNL_BATCH_DONE and the kernel calls ->abort() (NFNL_ABORT_VALIDATE), discarding every change.
// A batch spread over several sendmsg() calls is therefore never committed. Like nft's
// mnl_batch_talk, we send the whole batch in one datagram and raise SO_SNDBUFFORCE to its size
// (netlink_sendmsg refuses len > sk_sndbuf - 32 with EMSGSIZE; large skbs are vmalloc'ed).
// "sends" in the result is therefore always 1 for a non-empty transaction.
//
// Replies: nfnetlink processes the batch synchronously inside sendmsg() and queues the replies
// (one NLMSG_ERROR per failed message, delivered after the whole batch was processed, plus the ack
// of the last message which carries NLM_F_ACK; errors about the batch as a whole - ENOMEM, commit
// failure, EPERM - use BATCH_BEGIN's seq). We read until the last message's reply or a
// batch-level error arrives. The kernel keeps processing after a failing message, so every
// error of the batch is reported; any error means the whole batch was aborted.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "netlink/socket.h"
#include "txn/types.h"

namespace kpn {
namespace nft {

struct CommitError {
  int errnum = 0;      // positive errno
  long opIndex = -1;   // index of the op in the transaction; -1 = the batch as a whole
  uint32_t seq = 0;
  std::string extack;
};

struct CommitResult {
  uint32_t messages = 0;  // netlink messages sent, batch markers included
  uint32_t sends = 0;
  uint64_t bytes = 0;
  std::vector<CommitError> errors;  // empty = committed
  std::string localFailure;         // set when we failed before/while talking to the kernel
};

CommitResult Commit(NetlinkSocket& sock, const Transaction& txn);

}  // namespace nft
}  // namespace kpn
