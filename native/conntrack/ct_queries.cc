#include "ct_queries.h"

#include <string>
#include <unordered_map>

namespace kpn::ct {

namespace {

std::string OrigKey(const Filter& f) {
  std::string k;
  k.push_back(static_cast<char>(f.family));
  k.push_back(static_cast<char>(f.proto));
  k.push_back(f.hasOrigDst ? 1 : 0);
  if (f.hasOrigDst) k.append(reinterpret_cast<const char*>(f.origDst), sizeof f.origDst);
  k.push_back(f.hasOrigDstPort ? 1 : 0);
  if (f.hasOrigDstPort) {
    k.push_back(static_cast<char>(f.origDstPort >> 8));
    k.push_back(static_cast<char>(f.origDstPort & 0xff));
  }
  return k;
}

Filter OrigPart(const Filter& f) {
  Filter o = f;
  o.hasReplySrc = o.hasReplySrcPort = false;
  return o;
}

}  // namespace

std::vector<Query> PlanQueries(const std::vector<Filter>& filters) {
  std::vector<Query> out;
  std::unordered_map<std::string, size_t> byOrig;
  for (const Filter& f : filters) {
    if (!f.hasOrigDst && !f.hasOrigDstPort) {
      out.push_back(Query{f, {f}});
      continue;
    }
    auto [it, fresh] = byOrig.emplace(OrigKey(f), out.size());
    if (fresh) {
      out.push_back(Query{f, {f}});
      continue;
    }
    Query& q = out[it->second];
    q.kernel = OrigPart(q.kernel);
    q.members.push_back(f);
  }
  return out;
}

}  // namespace kpn::ct
