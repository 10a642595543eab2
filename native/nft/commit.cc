#include "nft/commit.h"

#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "nft/batch.h"
#include "nft/commit_replies.h"
#include "txn/decoder.h"

namespace kpn {
namespace nft {

namespace {

// Room for every reply even if each message fails (an error skb costs ~1 KiB of rcvbuf).
size_t RecvBufferFor(uint32_t messages) {
  size_t want = (size_t(4) << 20) + size_t(messages) * 1024;
  return std::min(want, size_t(256) << 20);
}

void CollectReplies(NetlinkSocket& sock, CommitReplyState& st, CommitResult* res) {
  std::vector<uint8_t> buf;
  while (!st.done) {
    int e = sock.RecvOne(&buf);
    if (e != 0) {
      std::string what = e == ENOBUFS ? "kernel dropped replies (receive queue overflow); the batch failed"
                       : e == EAGAIN ? "timed out waiting for the kernel's reply to the batch"
                                     : std::string("receiving batch replies: ") + std::strerror(e);
      res->errors.push_back(CommitError{e, kBatchOpIndex, 0, what});
      return;
    }
    if (!FeedCommitReplies(buf.data(), buf.size(), st, res)) return;
  }
}

}  // namespace

CommitResult Commit(NetlinkSocket& sock, const Transaction& txn) {
  CommitResult res;
  if (txn.empty()) return res;
  EncodedBatch batch;
  long failedOp = -1;
  if (!EncodeBatch(txn, &batch, &failedOp)) {
    Op scratch;
    if (!OpAt(txn, size_t(failedOp), &scratch)) {
      res.localFailure = "op " + std::to_string(failedOp) + " no longer decodes: the transaction buffer changed during the commit";
    } else {
      res.errors.push_back(CommitError{EMSGSIZE, failedOp, 0, "op does not fit netlink's 64 KiB attribute limit"});
    }
    return res;
  }
  uint32_t base = sock.ReserveSeq(uint32_t(batch.seqToOp.size()));
  Rebase(&batch.bytes, base);
  res.messages = uint32_t(batch.seqToOp.size());
  res.bytes = batch.bytes.size();
  if (int e = sock.EnsureRecvBuffer(RecvBufferFor(res.messages))) {
    res.localFailure = std::string("SO_RCVBUFFORCE: ") + std::strerror(e);
    return res;
  }
  if (int e = sock.SendOne(batch.bytes.data(), batch.bytes.size())) {
    res.errors.push_back(CommitError{e, kBatchOpIndex, base, std::string("sendmsg: ") + std::strerror(e)});
    return res;
  }
  res.sends = 1;
  CommitReplyState st{txn, batch, base};
  CollectReplies(sock, st, &res);
  return res;
}

}  // namespace nft
}  // namespace kpn
