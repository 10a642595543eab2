// libFuzzer entry: the transaction decoder, then (for buffers it accepts) the nftables batch
// encoder. Both are pure code: no sockets, no N-API.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include <linux/netlink.h>

#include "netlink/attr.h"
#include "nft/batch.h"
#include "txn/decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kpn::Transaction txn;
  kpn::DecodeError err;
  if (!kpn::DecodeTransaction(data, size, &txn, &err)) {
    volatile size_t n = err.ToString().size();  // the message must always be formable
    (void)n;
    return 0;
  }
  kpn::nft::EncodedBatch batch;
  long failedOp = -1;
  if (!kpn::nft::EncodeBatch(txn, &batch, &failedOp)) return 0;
  // Walk every message's attributes as the error path does, at an offset taken from the input.
  size_t probe = size > 0 ? data[size - 1] * 4u : 0;
  for (size_t off : batch.seqToOffset) {
    nlmsghdr h;
    std::memcpy(&h, batch.bytes.data() + off, sizeof h);
    volatile size_t steps = kpn::AttrPathAt(batch.bytes.data() + off, h.nlmsg_len, 20, probe).size();
    (void)steps;
  }
  kpn::nft::Rebase(&batch.bytes, 1000);
  return 0;
}
