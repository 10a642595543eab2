// Plain C++ form of one decoded transaction (docs/wire-format.md). No N-API, no sockets: the
// decoder fills these and the nftables encoder reads them.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "txn/element_list.h"

namespace kpn {

using Bytes = std::vector<uint8_t>;

enum class OpCode : uint8_t {
  kAddTable = 1, kDelTable, kFlushTable, kAddChain, kFlushChain, kDelChain, kAddRule,
  kAddSet, kDelSet, kFlushSet, kAddElems, kDelElems, kDelRule,
};
constexpr uint8_t kOpCodeMax = 13;
constexpr uint8_t kOpFlagCreate = 1;
// Set ids from TypeScript must be below this; C++ numbers id-less NEWSETs from here.
constexpr uint32_t kAutoSetIdBase = 0x80000000u;

struct Verdict { int32_t code = 0; std::string chain; };

struct PayloadExpr { uint8_t base; uint32_t offset, len, dreg; };
struct MetaExpr { uint8_t dir; uint32_t key, reg; };
struct CmpExpr { uint32_t sreg, op; Bytes data; };
struct BitwiseExpr { uint32_t sreg, dreg, len; Bytes mask, xorv; };
struct LookupExpr { uint32_t sreg; std::string set; uint32_t setId; bool hasDreg; uint32_t dreg, flags; };
struct ImmediateExpr { uint32_t dreg; Verdict verdict; Bytes data; };
struct NatExpr { uint32_t natType, family, regAddrMin, regAddrMax, regProtoMin, regProtoMax, flags; };
struct MasqExpr { uint32_t flags, regProtoMin, regProtoMax; };
struct RejectExpr { uint32_t type; uint8_t code; };
struct NumgenExpr { uint32_t dreg, mod, type, offset; };
struct CtExpr { uint8_t dir; uint32_t key; uint8_t ctDir; uint32_t reg; };
struct CounterExpr {};
struct FibExpr { uint32_t dreg, result, flags; };
struct DynsetExpr { uint32_t op; std::string set; uint32_t setId, sregKey, sregData; uint64_t timeoutMs; uint32_t flags; };
struct NotrackExpr {};

// Variant index + 1 == the wire expression type.
using Expr = std::variant<PayloadExpr, MetaExpr, CmpExpr, BitwiseExpr, LookupExpr, ImmediateExpr,
                          NatExpr, MasqExpr, RejectExpr, NumgenExpr, CtExpr, CounterExpr, FibExpr,
                          DynsetExpr, NotrackExpr>;

// One element as plain data, for building an ElementList in code (ElementList::Append: the fuzz
// seeds); the decoder never makes one, it keeps an op's elements in wire form.
struct Element {
  Bytes key, keyEnd;
  uint32_t flags = 0;
  DataKind dataKind = DataKind::kNone;
  Verdict verdict;
  Bytes data;
  uint64_t timeoutMs = 0;
};

struct ChainBase { uint32_t hook = 0; int32_t priority = 0; std::string type; uint8_t policy = 0; };

struct SetSpec {
  uint32_t flags = 0, keyType = 0, keyLen = 0, dataType = 0, dataLen = 0;
  uint64_t timeoutMs = 0;
  uint32_t gcIntervalMs = 0;
  std::vector<uint8_t> concat;
  uint32_t sizeHint = 0;
  Bytes userdata;  // NFTA_SET_USERDATA verbatim (nft's udata TLVs: byte orders, typeof, comment)
};

struct Op {
  OpCode code = OpCode::kAddTable;
  uint8_t flags = 0;
  uint8_t family = 0;
  std::string table;
  std::string chain;        // chain ops, ADD_RULE, DEL_RULE
  std::string set;          // set ops
  uint32_t setId = 0;
  uint32_t tableFlags = 0;  // ADD_TABLE
  bool isBase = false;      // ADD_CHAIN
  ChainBase base;
  Bytes userdata;           // ADD_RULE
  std::vector<Expr> exprs;  // ADD_RULE
  SetSpec setSpec;          // ADD_SET
  ElementList elements;     // ADD_ELEMS / DEL_ELEMS
  uint64_t handle = 0;      // DEL_RULE
};

// A transaction's ops, in one of two forms. Built in code (fuzz seeds, tests): `ops` holds them.
// Decoded from a buffer (DecodeTransaction): only where each op starts, in the buffer, which the
// Transaction borrows; OpAt (txn/decoder.h) decodes one op again, with every check, when it is
// encoded or an error names it. A commit at scale then never holds its ~100,000 rules as objects
// (~350 bytes an op, more per expression) nor a copy of its elements (docs/memory.md).
struct Transaction {
  std::vector<Op> ops;
  const uint8_t* wire = nullptr;  // the decoded buffer: its owner keeps it alive while this is used
  size_t wireBytes = 0;           // its size (0 if built in code): sizes the batch
  std::vector<size_t> opOffsets;  // where each op of `wire` starts

  size_t size() const { return wire ? opOffsets.size() : ops.size(); }
  bool empty() const { return size() == 0; }
};

}  // namespace kpn
