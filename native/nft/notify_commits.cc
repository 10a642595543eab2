#include "nft/notify_commits.h"

#include <algorithm>
#include <cstring>

#include <linux/netlink.h>

namespace kpn {
namespace nft {

namespace {

std::string EntryKey(const Change& c) {
  std::string k;
  k.reserve(c.table.size() + c.name.size() + 8);
  k.push_back(char(c.op));
  k.push_back(char(c.kind));
  k.push_back(char(c.family));
  k.append(reinterpret_cast<const char*>(&c.msgType), sizeof c.msgType);
  k.append(c.table);
  k.push_back('\0');  // names hold no NUL (AttrStr stops at one), so the key is unambiguous
  k.append(c.name);
  return k;
}

bool IsOwn(uint32_t portId, const std::vector<uint32_t>& own) {
  return std::binary_search(own.begin(), own.end(), portId);
}

uint32_t AddCount(uint32_t a, uint32_t b) { return b > UINT32_MAX - a ? UINT32_MAX : a + b; }

}  // namespace

bool CommitGrouper::Interesting(const Change& c) const {
  if (c.kind == ChangeKind::kUnknown) return true;  // cannot tell which table: keep
  for (const TableRef& t : interest_) {
    if (t.family == c.family && t.name == c.table) return true;
  }
  return false;
}

void CommitGrouper::Emit(std::vector<CommitReport>* out) {
  if (open_) out->push_back(std::move(pending_));
  open_ = false;
  pending_ = CommitReport{};
  index_.clear();
}

void CommitGrouper::AddChange(uint32_t portId, Change c, std::vector<CommitReport>* out) {
  // Without a lost NEWGEN a commit's changes are contiguous; a new port id means the previous
  // commit's end went missing, so report what it had rather than mixing two commits.
  if (open_ && pending_.portId != portId) Emit(out);
  if (!open_) {
    open_ = true;
    pending_.portId = portId;
  }
  std::string key = EntryKey(c);
  auto it = index_.find(key);
  if (it != index_.end()) {
    Change& e = pending_.changes[it->second];
    e.count = AddCount(e.count, c.count);
    return;
  }
  if (index_.size() >= kMaxEntries) {
    Change overflow;  // folds the rest of a huge commit into one unknown entry
    overflow.family = c.family;
    c = overflow;
    c.count = 1;
    key = EntryKey(c);
    it = index_.find(key);
    if (it != index_.end()) {
      pending_.changes[it->second].count = AddCount(pending_.changes[it->second].count, 1);
      return;
    }
  }
  index_.emplace(std::move(key), pending_.changes.size());
  pending_.changes.push_back(std::move(c));
}

void CommitGrouper::EndCommit(const NotifyMsg& gen, std::vector<CommitReport>* out) {
  if (!open_) return;  // the commit changed nothing of interest
  if (pending_.portId == gen.portId) {
    pending_.hasGenId = gen.hasGenId;
    pending_.genId = gen.genId;
    pending_.hasPid = gen.hasPid;
    pending_.pid = gen.pid;
    pending_.comm = gen.comm;
  }
  Emit(out);
}

void CommitGrouper::Feed(const uint8_t* data, size_t len, const std::vector<uint32_t>& own,
                         std::vector<CommitReport>* out) {
  msgs_.clear();
  if (!ParseNotifyDatagram(data, len, &msgs_)) {
    NotifyMsg bad;  // the kernel never sends this; reported, not guessed at
    bad.type = NotifyMsg::Type::kChange;
    if (len >= NLMSG_HDRLEN) std::memcpy(&bad.portId, data + offsetof(nlmsghdr, nlmsg_pid), 4);
    msgs_.push_back(std::move(bad));
  }
  for (NotifyMsg& m : msgs_) {
    if (m.type == NotifyMsg::Type::kIgnored || IsOwn(m.portId, own)) continue;
    if (m.type == NotifyMsg::Type::kNewGen) EndCommit(m, out);
    else if (Interesting(m.change)) AddChange(m.portId, std::move(m.change), out);
  }
}

void CommitGrouper::Discard() {
  open_ = false;
  pending_ = CommitReport{};
  index_.clear();
}

}  // namespace nft
}  // namespace kpn
