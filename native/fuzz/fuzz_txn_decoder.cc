// libFuzzer entry: the transaction decoder alone (no sockets, no N-API).
#include <cstddef>
#include <cstdint>

#include "../txn_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kpn::Transaction txn;
  kpn::DecodeError err;
  if (!kpn::DecodeTransaction(data, size, &txn, &err)) {
    // The message must always be formable; touching it exercises the error path fully.
    volatile size_t n = err.ToString().size();
    (void)n;
  }
  return 0;
}
