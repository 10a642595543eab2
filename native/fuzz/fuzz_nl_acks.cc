// libFuzzer entry: one datagram of replies to a request or a batch. It goes through
// - ParseAck on every message, and AttrPathAt at the offset the ack names (or one taken from the
//   input), inside that message itself;
// - ReplyCollector (nl_request.h), the reader of every GET and dump, for the first message's seq;
// - FeedCommitReplies (nft/commit_replies.h) against seed_txn.h's batch, so that sequence numbers
//   and offsets from the captured kernel replies land on real messages and are explained.
#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "netlink/attr.h"
#include "netlink/request.h"
#include "nft/batch.h"
#include "nft/commit_replies.h"
#include "seed_txn.h"

namespace {

const kpn::Transaction& SeedTxn() {
  static const kpn::Transaction txn = kpn::fuzzseed::AckSeedTransaction();
  return txn;
}

const kpn::nft::EncodedBatch& SeedBatch() {
  static const kpn::nft::EncodedBatch batch = [] {
    kpn::nft::EncodedBatch b;
    long failedOp = -1;
    if (!kpn::nft::EncodeBatch(SeedTxn(), &b, &failedOp)) __builtin_trap();
    kpn::nft::Rebase(&b.bytes, kpn::fuzzseed::kAckSeedBase);
    return b;
  }();
  return batch;
}

void WalkAcks(const uint8_t* data, size_t size) {
  size_t probe = size > 0 ? data[size - 1] * 4u : 0;
  kpn::ForEachMsg(data, size, [&](const nlmsghdr& h, const uint8_t* p, size_t n) {
    const uint8_t* msg = p - NLMSG_HDRLEN;
    kpn::NlAck ack;
    if (kpn::ParseAck(h, p, n, &ack)) {
      volatile size_t text = ack.extack.size();
      (void)text;
      if (ack.badAttrOffset >= 0) probe = size_t(ack.badAttrOffset);
    }
    volatile size_t steps = kpn::AttrPathAt(msg, h.nlmsg_len, NLMSG_HDRLEN + 4, probe).size();
    (void)steps;
    return true;
  });
}

void Collect(const uint8_t* data, size_t size) {
  uint32_t seq = 0;
  if (size >= NLMSG_HDRLEN) std::memcpy(&seq, data + 8, sizeof seq);
  size_t dataMsgs = 0;
  kpn::ReplyCollector replies(seq, [&](const nlmsghdr&, const uint8_t*, size_t) { dataMsgs++; });
  replies.Feed(data, size);
  replies.Feed(data, size);  // a second datagram, after the end or not
  volatile size_t text = replies.result().message.size() + dataMsgs;
  (void)text;
}

void CommitReplies(const uint8_t* data, size_t size) {
  kpn::nft::CommitResult res;
  kpn::nft::CommitReplyState st{SeedTxn(), SeedBatch(), kpn::fuzzseed::kAckSeedBase};
  kpn::nft::FeedCommitReplies(data, size, st, &res);
  volatile size_t text = 0;
  for (const auto& e : res.errors) text += e.extack.size();
  (void)text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  WalkAcks(data, size);
  Collect(data, size);
  CommitReplies(data, size);
  return 0;
}
