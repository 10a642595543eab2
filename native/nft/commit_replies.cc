#include "nft/commit_replies.h"

#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "netlink/attr.h"
#include "nft/encode.h"
#include "txn/decoder.h"

namespace kpn {
namespace nft {

namespace {

std::string Hex(ByteView b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < b.size; i++) { s += kDigits[b.data[i] >> 4]; s += kDigits[b.data[i] & 15]; }
  return s;
}

// "element 1234 (key 0a000005)": the n-th element of the message whose first element is `first`.
// The cursor starts at that element, so this reads one message's elements at most.
bool DescribeElement(const Op& op, ElementPos first, size_t n, std::string* out) {
  ElementCursor cursor = op.elements.Walk(first);
  ElementView e;
  if (!cursor.Skip(n) || !cursor.Next(&e)) return false;
  *out = "element " + std::to_string(first.index + n) + " (key " + Hex(e.key) + ")";
  return true;
}

// Names what the kernel pointed at: "expression 2 (lookup)", "element 1234 (key 0a000005)", or
// the raw attribute types ("attribute 3 > 1").
std::string DescribePath(const std::vector<AttrStep>& path, const Op* op, ElementPos firstElem) {
  bool elemOp = op && (op->code == OpCode::kAddElems || op->code == OpCode::kDelElems);
  if (op && op->code == OpCode::kAddRule && path.size() >= 2 && path[0].type == NFTA_RULE_EXPRESSIONS &&
      path[1].index < op->exprs.size()) {
    size_t i = path[1].index;
    return "expression " + std::to_string(i) + " (" + ExprName(op->exprs[i]) + ")";
  }
  std::string element;
  if (elemOp && path.size() >= 2 && path[0].type == NFTA_SET_ELEM_LIST_ELEMENTS &&
      DescribeElement(*op, firstElem, path[1].index, &element)) {
    return element;
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
  Op scratch;
  const Op* op = opIndex >= 0 ? OpAt(txn, size_t(opIndex), &scratch) : nullptr;
  std::string where = "kernel refused " + DescribePath(path, op, batch.seqToFirstElem[rel]);
  return ack.extack.empty() ? where : ack.extack + "; " + where;
}

void HandleReply(const nlmsghdr& h, const uint8_t* payload, size_t len, CommitReplyState& st, CommitResult* res) {
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

}  // namespace

bool FeedCommitReplies(const uint8_t* buf, size_t n, CommitReplyState& st, CommitResult* res) {
  bool ok = ForEachMsg(buf, n, [&](const nlmsghdr& h, const uint8_t* p, size_t len) {
    HandleReply(h, p, len, st, res);
    return true;
  });
  if (!ok) res->errors.push_back(CommitError{EPROTO, kBatchOpIndex, 0, "malformed netlink reply"});
  return ok;
}

}  // namespace nft
}  // namespace kpn
