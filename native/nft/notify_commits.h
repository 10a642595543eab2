// Groups parsed notifications into one report per commit: the kernel announces a commit's changes
// in datagrams of that commit only and ends each commit with NFT_MSG_NEWGEN (one datagram of its
// own), all carrying the committing socket's port id. Pure code, fuzzed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "nft/notify.h"

namespace kpn {
namespace nft {

struct TableRef { uint8_t family = 0; std::string name; };

struct CommitReport {
  uint32_t portId = 0;
  bool hasGenId = false, hasPid = false;  // hasGenId false: the commit's NEWGEN was never seen
  uint32_t genId = 0, pid = 0;
  std::string comm;
  std::vector<Change> changes;            // rules and elements summed per chain/set
};

class CommitGrouper {
 public:
  // More distinct entries than this in one commit are folded into one unknown entry (memory bound).
  static constexpr size_t kMaxEntries = 65536;

  explicit CommitGrouper(std::vector<TableRef> interest) : interest_(std::move(interest)) {}

  // Feeds one datagram; reports of commits it completes are appended to *out. Messages from a
  // port in `ownPortIds` (sorted) are dropped, as are changes to tables outside the interest list
  // and the NEWGEN of commits that changed none of them. Unknown messages are always kept.
  void Feed(const uint8_t* data, size_t len, const std::vector<uint32_t>& ownPortIds, std::vector<CommitReport>* out);

  // Events were lost (the socket overflowed): forget the commit in progress.
  void Discard();

  // True while a commit's changes are held waiting for its NEWGEN.
  bool pending() const { return open_; }
  // Reports the commit in progress without its NEWGEN (lost in an overflow, or very late).
  void Flush(std::vector<CommitReport>* out) { Emit(out); }

 private:
  bool Interesting(const Change& c) const;
  void AddChange(uint32_t portId, Change c, std::vector<CommitReport>* out);
  void EndCommit(const NotifyMsg& gen, std::vector<CommitReport>* out);
  void Emit(std::vector<CommitReport>* out);

  std::vector<TableRef> interest_;
  bool open_ = false;               // a commit with interesting changes is being collected
  CommitReport pending_;
  std::unordered_map<std::string, size_t> index_;  // entry key -> position in pending_.changes
  std::vector<NotifyMsg> msgs_;     // scratch, reused per datagram
};

}  // namespace nft
}  // namespace kpn
