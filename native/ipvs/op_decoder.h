// Validating decoder of the IPVS op buffer (docs/wire-format.md, "The IPVS op buffer"). Pure C++
// (the fuzz target links it alone). Nothing is trusted: every enum, length, address size by
// family, port, weight and scheduler name is checked, and the first problem is reported with its
// byte offset and field, "ops[3].dest.weight".
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ipvs/types.h"
#include "txn/decoder.h"  // DecodeError

namespace kpn {
namespace ipvs {

constexpr uint32_t kOpsMagic = 0x4956504b;  // "KPVI" little-endian
constexpr uint16_t kOpsVersion = 1;
constexpr size_t kMaxSchedName = 15;  // IP_VS_SCHEDNAME_MAXLEN - 1 (the NUL)

bool DecodeOps(const uint8_t* data, size_t len, std::vector<Op>* out, DecodeError* err);

// A lone service key (dumpDestinations' argument): the key's bytes exactly, nothing after.
bool DecodeServiceKey(const uint8_t* data, size_t len, ServiceKey* out, DecodeError* err);

// "invalid IPVS op buffer at byte 12, field ops[0].service.port: ..."
std::string DescribeDecodeError(const DecodeError& e);

}  // namespace ipvs
}  // namespace kpn
