#include "napi/conntrack_stats.h"

#include <linux/netfilter/nfnetlink_conntrack.h>

#include <string>
#include <utility>

#include "conntrack/ct_stats.h"
#include "conntrack/ct_stats_messages.h"
#include "napi/conntrack_args.h"
#include "napi/conntrack_worker.h"

namespace kpn {

namespace {

struct CounterName {
  int type;
  const char* name;
};

// The kernel's per-CPU counters by the names conntrack(8) -S prints; the ones the kernel stopped
// sending (searched, new, ignore, delete, delete_list) are left out.
constexpr CounterName kCounters[] = {
    {CTA_STATS_FOUND, "found"},
    {CTA_STATS_INVALID, "invalid"},
    {CTA_STATS_INSERT, "insert"},
    {CTA_STATS_INSERT_FAILED, "insert_failed"},
    {CTA_STATS_DROP, "drop"},
    {CTA_STATS_EARLY_DROP, "early_drop"},
    {CTA_STATS_ERROR, "error"},
    {CTA_STATS_SEARCH_RESTART, "search_restart"},
    {CTA_STATS_CLASH_RESOLVE, "clash_resolve"},
    {CTA_STATS_CHAIN_TOOLONG, "chain_toolong"},
};

Napi::Object StatsObject(Napi::Env env, const ct::Stats& s) {
  Napi::Object counters = Napi::Object::New(env);
  for (const CounterName& c : kCounters) {
    if (s.present[c.type]) counters.Set(c.name, Napi::Number::New(env, double(s.counters[c.type])));
  }
  Napi::Object r = Napi::Object::New(env);
  r.Set("entries", Napi::Number::New(env, double(s.entries)));
  r.Set("maxEntries", Napi::Number::New(env, double(s.maxEntries)));
  r.Set("cpus", Napi::Number::New(env, s.cpus));
  r.Set("counters", counters);
  return r;
}

class StatsWorker : public ConntrackWorker {
 public:
  StatsWorker(Napi::Env env, std::string netns) : ConntrackWorker(env, "conntrack stats", std::move(netns)) {}

 protected:
  bool Run(const std::string& netns, ct::Failure* failure) override { return ct::ReadStats(netns, &stats_, failure); }
  Napi::Value Result(Napi::Env env) override { return StatsObject(env, stats_); }

 private:
  ct::Stats stats_;
};

bool BufferArg(Napi::Env env, const Napi::Value& v, const char* name, Napi::Buffer<uint8_t>* out) {
  if (!v.IsBuffer()) return ThrowType(env, std::string(name) + " must be a Buffer");
  *out = v.As<Napi::Buffer<uint8_t>>();
  return true;
}

}  // namespace

Napi::Value ConntrackStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string netns;
  if (!NetnsPathArg(env, info[0], &netns)) return env.Undefined();
  return QueueWorker(new StatsWorker(env, std::move(netns)));
}

Napi::Value DecodeConntrackStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Buffer<uint8_t> cpu, global;
  if (!BufferArg(env, info[0], "cpuReply", &cpu) || !BufferArg(env, info[1], "globalReply", &global)) return env.Undefined();
  ct::Stats stats;
  ct::Failure failure;
  if (!ct::DecodeStatsReplies(cpu.Data(), cpu.Length(), global.Data(), global.Length(), &stats, &failure)) {
    ErrnoError(env, failure.errnum, "conntrack stats: " + failure.message).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return StatsObject(env, stats);
}

}  // namespace kpn
