// The nftables transaction behind the nl_acks seeds: capture_seeds sends it to a real kernel and
// records the replies; fuzz_nl_acks encodes the same transaction so that the sequence numbers and
// attribute offsets in those replies point into the same messages. Most ops fail on purpose (a
// missing table, chain, set; a key of the wrong length), so the kernel answers with errors,
// extack texts and offsets. Header-only: plain data.
#pragma once
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <cstdint>
#include <string>

#include "txn/types.h"

namespace kpn::fuzzseed {

constexpr uint32_t kAckSeedBase = 1000;  // the batch's first sequence number
constexpr uint8_t kFamilyIp = 2;         // NFPROTO_IPV4
inline const char* kTable = "kpnfuzz";

inline Op MakeOp(OpCode code, const std::string& table) {
  Op op;
  op.code = code;
  op.family = kFamilyIp;
  op.table = table;
  return op;
}

inline Op RuleOp(const std::string& chain, const std::string& set) {
  Op op = MakeOp(OpCode::kAddRule, kTable);
  op.chain = chain;
  op.exprs.push_back(PayloadExpr{NFT_PAYLOAD_NETWORK_HEADER, 16, 4, NFT_REG_1});
  op.exprs.push_back(CmpExpr{NFT_REG_1, NFT_CMP_EQ, Bytes{10, 96, 0, 10}});
  op.exprs.push_back(CounterExpr{});
  op.exprs.push_back(LookupExpr{NFT_REG_1, set, 0, false, 0, 0});
  op.exprs.push_back(ImmediateExpr{NFT_REG_VERDICT, Verdict{NF_ACCEPT, ""}, Bytes{}});
  return op;
}

// Appends an element with only a key; the keys here are 1..64 bytes, which Append accepts.
inline void AddKey(Op* op, Bytes key) {
  Element e;
  e.key = std::move(key);
  if (!op->elements.Append(e)) __builtin_trap();
}

inline Op ElemsOp(const std::string& set, Bytes key) {
  Op op = MakeOp(OpCode::kAddElems, kTable);
  op.set = set;
  AddKey(&op, std::move(key));
  AddKey(&op, Bytes{10, 0, 0, 2});
  return op;
}

inline Transaction AckSeedTransaction() {
  Transaction txn;
  txn.ops.push_back(MakeOp(OpCode::kAddTable, kTable));
  Op chainInMissingTable = MakeOp(OpCode::kAddChain, "kpnfuzz-missing");
  chainInMissingTable.chain = "c";
  txn.ops.push_back(chainInMissingTable);
  Op chain = MakeOp(OpCode::kAddChain, kTable);
  chain.chain = "c1";
  txn.ops.push_back(chain);
  txn.ops.push_back(RuleOp("c1", "no-such-set"));   // lookup of a missing set
  txn.ops.push_back(RuleOp("no-such-chain", "s"));  // rule in a missing chain
  Op set = MakeOp(OpCode::kAddSet, kTable);
  set.set = "s";
  set.setId = 1;
  set.setSpec.keyType = 7;  // ipv4_addr
  set.setSpec.keyLen = 4;
  txn.ops.push_back(set);
  txn.ops.push_back(ElemsOp("s", Bytes{10, 0}));           // key of the wrong length
  txn.ops.push_back(ElemsOp("no-such-set", Bytes{10, 0, 0, 1}));
  return txn;
}

}  // namespace kpn::fuzzseed
