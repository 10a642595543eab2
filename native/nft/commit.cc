#include "commit.h"

#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "../nl_attr.h"
#include "batch.h"
#include "encode.h"

namespace kpn {
namespace nft {

namespace {

// Room for every reply even if each message fails (an error skb costs ~1 KiB of rcvbuf).
size_t RecvBufferFor(uint32_t messages) {
  size_t want = (size_t(4) << 20) + size_t(messages) * 1024;
  return std::min(want, size_t(256) << 20);
}

std::string Hex(const Bytes& b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (uint8_t c : b) { s += kDigits[c >> 4]; s += kDigits[c & 15]; }
  return s;
}

// Names what the kernel pointed at: "expression 2 (lookup)", "element 1234 (key 0a000005)", or
// the raw attribute types ("attribute 3 > 1").
std::string DescribePath(const std::vector<AttrStep>& path, const Op* op, size_t firstElem) {
  bool elemOp = op && (op->code == OpCode::kAddElems || op->code == OpCode::kDelElems);
  if (op && op->code == OpCode::kAddRule && path.size() >= 2 && path[0].type == NFTA_RULE_EXPRESSIONS &&
      path[1].index < op->exprs.size()) {
    size_t i = path[1].index;
    return "expression " + std::to_string(i) + " (" + ExprName(op->exprs[i]) + ")";
  }
  if (elemOp && path.size() >= 2 && path[0].type == NFTA_SET_ELEM_LIST_ELEMENTS &&
      firstElem + path[1].index < op->elements.size()) {
    size_t i = firstElem + path[1].index;
    return "element " + std::to_string(i) + " (key " + Hex(op->elements[i].key) + ")";
  }
  std::string s = "attribute";
  for (size_t i = 0; i < path.size(); i++) s += (i ? " > " : " ") + std::to_string(path[i].type);
  return s + " (nla types from the message top)";
}

// The kernel's text, plus which attribute it pointed at (nf_tables mostly sets only the offset).
std::string Explain(const NlAck& ack, const EncodedBatch& batch, uint32_t rel, const Transaction& txn) {
  if (ack.badAttrOffset < 0) return ack.extack;
  const uint8_t* msg = batch.bytes.data() + batch.seqToOffset[rel];
  nlmsghdr h;
  std::memcpy(&h, msg, sizeof h);
  size_t hdr = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(nfgenmsg));
  auto path = AttrPathAt(msg, h.nlmsg_len, hdr, size_t(ack.badAttrOffset));
  if (path.empty()) return ack.extack;
  long opIndex = batch.seqToOp[rel];
  const Op* op = opIndex >= 0 ? &txn.ops[size_t(opIndex)] : nullptr;
  std::string where = "kernel refused " + DescribePath(path, op, batch.seqToFirstElem[rel]);
  return ack.extack.empty() ? where : ack.extack + "; " + where;
}

struct ReplyState {
  const Transaction& txn;
  const EncodedBatch& batch;
  uint32_t base;
  bool done = false;
};

void HandleReply(const nlmsghdr& h, const uint8_t* payload, size_t len, ReplyState& st, CommitResult* res) {
  if (h.nlmsg_type != NLMSG_ERROR) return;
  NlAck ack;
  if (!ParseAck(h, payload, len, &ack)) return;
  uint32_t rel = ack.seq - st.base;
  if (rel >= st.batch.seqToOp.size()) return;  // stale reply from an earlier operation
  long opIndex = st.batch.seqToOp[rel];
  if (ack.error != 0) {
    res->errors.push_back(CommitError{ack.error, opIndex, ack.seq, Explain(ack, st.batch, rel, st.txn)});
  }
  if (rel == st.batch.ackedSeq || (opIndex == kBatchOpIndex && ack.error != 0)) st.done = true;
}

void CollectReplies(NetlinkSocket& sock, ReplyState& st, CommitResult* res) {
  std::vector<uint8_t> buf;
  while (!st.done) {
    int e = sock.RecvOne(&buf);
    if (e != 0) {
      std::string what = e == ENOBUFS ? "kernel dropped replies (receive queue overflow); the batch failed"
                       : e == EAGAIN ? "timed out waiting for the kernel's reply to the batch"
                                     : std::string("receiving batch replies: ") + std::strerror(e);
      res->errors.push_back(CommitError{e, kBatchOpIndex, 0, what});
      return;
    }
    bool ok = ForEachMsg(buf.data(), buf.size(), [&](const nlmsghdr& h, const uint8_t* p, size_t n) {
      HandleReply(h, p, n, st, res);
      return true;
    });
    if (!ok) {
      res->errors.push_back(CommitError{EPROTO, kBatchOpIndex, 0, "malformed netlink reply"});
      return;
    }
  }
}

}  // namespace

CommitResult Commit(NetlinkSocket& sock, const Transaction& txn) {
  CommitResult res;
  if (txn.ops.empty()) return res;
  EncodedBatch batch;
  long failedOp = -1;
  if (!EncodeBatch(txn, &batch, &failedOp)) {
    res.errors.push_back(CommitError{EMSGSIZE, failedOp, 0, "op does not fit netlink's 64 KiB attribute limit"});
    return res;
  }
  uint32_t base = sock.ReserveSeq(uint32_t(batch.seqToOp.size()));
  Rebase(&batch.bytes, base);
  res.messages = uint32_t(batch.seqToOp.size());
  res.bytes = batch.bytes.size();
  if (int e = sock.EnsureRecvBuffer(RecvBufferFor(res.messages))) {
    res.localFailure = std::string("SO_RCVBUFFORCE: ") + std::strerror(e);
    return res;
  }
  if (int e = sock.SendOne(batch.bytes.data(), batch.bytes.size())) {
    res.errors.push_back(CommitError{e, kBatchOpIndex, base, std::string("sendmsg: ") + std::strerror(e)});
    return res;
  }
  res.sends = 1;
  ReplyState st{txn, batch, base};
  CollectReplies(sock, st, &res);
  return res;
}

}  // namespace nft
}  // namespace kpn
