// libFuzzer entry: the transaction decoder, then (for buffers it accepts) the nftables batch
// encoder. Both are pure code: no sockets, no N-API.
#include <cstddef>
#include <cstdint>
#include <string>

#include "../nft/batch.h"
#include "../txn_decoder.h"

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
  if (kpn::nft::EncodeBatch(txn, &batch, &failedOp)) kpn::nft::Rebase(&batch.bytes, 1000);
  return 0;
}
