// Turns a decoded transaction into one nfnetlink batch: BATCH_BEGIN, one message per op (element
// ops split into several), BATCH_END. Sequence numbers are written relative (0..n-1) and rebased
// by Rebase() once the socket hands out a range.
#pragma once
#include <cstdint>
#include <vector>

#include "txn/types.h"

namespace kpn {
namespace nft {

constexpr long kBatchOpIndex = -1;  // seq of BATCH_BEGIN/END: errors about the batch as a whole

struct EncodedBatch {
  std::vector<uint8_t> bytes;
  std::vector<long> seqToOp;  // relative seq -> op index (kBatchOpIndex for begin/end)
  std::vector<size_t> seqToOffset;  // relative seq -> byte offset of that message in `bytes`
  // relative seq -> the message's first element in its op's list (index, and offset for a cursor)
  std::vector<ElementPos> seqToFirstElem;
  uint32_t ackedSeq = 0;      // relative seq of the last op message (the one with NLM_F_ACK)
  uint32_t opMessages = 0;    // messages excluding BATCH_BEGIN/END
};

// Returns false (with the index of the op at fault) if an attribute of that op would overflow
// netlink's u16 attribute length, e.g. a rule with thousands of large expressions (or, which a
// transaction whose buffer is left unchanged never has, the op or its element list could not be
// read again to the end).
bool EncodeBatch(const Transaction& txn, EncodedBatch* out, long* failedOp);

// Adds `base` to every message's nlmsg_seq.
void Rebase(std::vector<uint8_t>* bytes, uint32_t base);

}  // namespace nft
}  // namespace kpn
