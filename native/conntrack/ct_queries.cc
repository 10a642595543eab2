#include "conntrack/ct_queries.h"

#include <sys/socket.h>

#include <cstring>
#include <map>
#include <utility>

#include "conntrack/ct_messages.h"

namespace kpn::ct {

namespace {

size_t AddrLen(uint8_t family) { return family == AF_INET6 ? 16 : 4; }

std::string OrigKey(bool hasDst, const uint8_t* dst, size_t addrLen, bool hasPort, uint16_t port) {
  std::string k;
  k.push_back(hasDst ? 1 : 0);
  if (hasDst) k.append(reinterpret_cast<const char*>(dst), addrLen);
  k.push_back(hasPort ? 1 : 0);
  if (hasPort) {
    k.push_back(static_cast<char>(port >> 8));
    k.push_back(static_cast<char>(port & 0xff));
  }
  return k;
}

std::string OrigKeyOf(const Filter& f) {
  return OrigKey(f.hasOrigDst, f.origDst, AddrLen(f.family), f.hasOrigDstPort, f.origDstPort);
}

std::string FamilyProto(const Filter& f) {
  return std::string{static_cast<char>(f.family), static_cast<char>(f.proto)};
}

Filter OnlyFamilyProto(const Filter& f) {
  Filter o;
  o.family = f.family;
  o.proto = f.proto;
  return o;
}

Filter OrigPart(const Filter& f) {
  Filter o = f;
  o.hasReplySrc = o.hasReplySrcPort = false;
  o.dnat = -1;  // matched per member in user space, like the reply part
  return o;
}

// Filters sharing family, protocol and original-direction part -> one query each.
std::vector<Query> GroupByOrig(const std::vector<Filter>& filters) {
  std::vector<Query> out;
  std::unordered_map<std::string, size_t> byKey;
  for (uint32_t index = 0; index < filters.size(); index++) {
    const Filter& f = filters[index];
    bool mergeable = f.hasOrigDst || f.hasOrigDstPort;
    if (mergeable) {
      auto [it, fresh] = byKey.emplace(FamilyProto(f) + OrigKeyOf(f), out.size());
      if (!fresh) {
        Query& q = out[it->second];
        q.kernel = OrigPart(q.kernel);
        q.members.push_back(f);
        q.memberIndex.push_back(index);
        continue;
      }
    }
    Query q;
    q.kernel = f;
    q.members.push_back(f);
    q.memberIndex.push_back(index);
    out.push_back(std::move(q));
  }
  return out;
}

// Several queries of one family+protocol -> one protocol-wide query, when that is cheaper.
std::vector<Query> Collapse(std::vector<Query> queries, int64_t tableEntries, uint32_t dumpCostEntries) {
  if (tableEntries < 0 || dumpCostEntries == 0) return queries;
  std::map<std::string, std::vector<size_t>> byProto;
  for (size_t i = 0; i < queries.size(); i++) byProto[FamilyProto(queries[i].kernel)].push_back(i);
  std::vector<bool> absorbed(queries.size(), false);
  std::vector<Query> merged;
  for (auto& [key, idx] : byProto) {
    uint64_t extraWalks = idx.size() - 1;
    if (idx.size() < 2 || static_cast<uint64_t>(tableEntries) >= extraWalks * dumpCostEntries) continue;
    Query q;
    q.kernel = OnlyFamilyProto(queries[idx[0]].kernel);
    for (size_t i : idx) {
      absorbed[i] = true;
      for (Filter& f : queries[i].members) q.members.push_back(f);
      for (uint32_t m : queries[i].memberIndex) q.memberIndex.push_back(m);
    }
    merged.push_back(std::move(q));
  }
  for (size_t i = 0; i < queries.size(); i++) {
    if (!absorbed[i]) merged.push_back(std::move(queries[i]));
  }
  return merged;
}

}  // namespace

std::vector<Query> PlanQueries(const std::vector<Filter>& filters, int64_t tableEntries,
                               uint32_t dumpCostEntries) {
  std::vector<Query> queries = Collapse(GroupByOrig(filters), tableEntries, dumpCostEntries);
  for (Query& q : queries) {
    for (uint32_t i = 0; i < q.members.size(); i++) q.byOrig[OrigKeyOf(q.members[i])].push_back(i);
  }
  return queries;
}

int64_t FirstMatch(const Query& q, const Entry& e) {
  size_t n = AddrLen(e.family);
  // The four ways a filter can name the original direction: dst+port, dst, port, neither.
  const std::string keys[4] = {
      OrigKey(true, e.orig.dst, n, true, e.orig.dstPort),
      OrigKey(true, e.orig.dst, n, false, 0),
      OrigKey(false, nullptr, n, true, e.orig.dstPort),
      OrigKey(false, nullptr, n, false, 0),
  };
  for (const std::string& k : keys) {
    auto it = q.byOrig.find(k);
    if (it == q.byOrig.end()) continue;
    for (uint32_t i : it->second) {
      if (Matches(q.members[i], e)) return q.memberIndex[i];
    }
  }
  return -1;
}

}  // namespace kpn::ct
