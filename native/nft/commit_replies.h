// What the kernel answers to one nfnetlink batch, decoded one datagram at a time: every error is
// mapped to the op that caused it and explained (extack text, and the attribute the kernel's
// offset points at in our own message). Pure: commit.cc feeds it from the socket, and the fuzz
// target native/fuzz/fuzz_nl_acks.cc feeds it arbitrary bytes.
#pragma once
#include <cstddef>
#include <cstdint>

#include "nft/batch.h"
#include "nft/commit.h"
#include "txn/types.h"

namespace kpn {
namespace nft {

struct CommitReplyState {
  const Transaction& txn;
  const EncodedBatch& batch;  // rebased to `base`
  uint32_t base;
  bool done = false;  // the last op's ack or a batch-level error arrived
};

// Handles every message of one datagram. False when it is malformed (an EPROTO error is added to
// res->errors then; the caller stops reading).
bool FeedCommitReplies(const uint8_t* buf, size_t n, CommitReplyState& st, CommitResult* res);

}  // namespace nft
}  // namespace kpn
