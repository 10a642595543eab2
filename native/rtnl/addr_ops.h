// The applyAddresses buffer: one 24-byte record per operation, so 10k addresses cross the N-API
// boundary as one Buffer instead of 10k objects (docs/native-api.md, "Links and addresses").
//   [0] op: 1 add, 2 delete     [1] family: 4 or 6     [2] prefix length (<= 32 / <= 128)
//   [3] 0                       [4..8) link index, u32 little-endian, 1..2^31-1
//   [8..24) address in network order; an IPv4 address fills [8..12) and [12..24) is zero
// Every byte is checked: a record that breaks any rule refuses the whole buffer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rtnl/rtnl_types.h"

namespace kpn {
namespace rtnl {

constexpr size_t kAddrOpRecordSize = 24;
constexpr size_t kMaxAddrOps = 1 << 20;

// False with *err naming the record and the field when the buffer is malformed.
bool DecodeAddrOps(const uint8_t* data, size_t len, std::vector<AddrOp>* out, std::string* err);

}  // namespace rtnl
}  // namespace kpn
