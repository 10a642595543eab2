#include "napi/ipset_destroy.h"

#include <string>
#include <utility>
#include <vector>

#include "ipset/ipset_destroy.h"
#include "napi/conntrack_args.h"
#include "napi/errors.h"
#include "napi/promise_worker.h"

namespace kpn {

namespace {

constexpr uint32_t kMaxNames = 1024;

class DestroyWorker : public PromiseWorker {
 public:
  DestroyWorker(Napi::Env env, std::string netns, std::vector<std::string> names)
      : PromiseWorker(env), netns_(std::move(netns)), names_(std::move(names)) {}

  void Execute() override { ok_ = ipset::DestroySets(netns_, names_, &outcomes_, &errnum_, &what_); }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    if (!ok_) {
      deferred_.Reject(ErrnoError(env, errnum_, "ipset destroy: " + what_).Value());
      return;
    }
    Napi::Array out = Napi::Array::New(env, outcomes_.size());
    for (uint32_t i = 0; i < outcomes_.size(); i++) {
      Napi::Object o = Napi::Object::New(env);
      o.Set("name", Napi::String::New(env, outcomes_[i].name));
      o.Set("errno", Napi::Number::New(env, outcomes_[i].errnum));
      o.Set("message", Napi::String::New(env, outcomes_[i].message));
      out.Set(i, o);
    }
    deferred_.Resolve(out);
  }

 private:
  std::string netns_;
  std::vector<std::string> names_;
  std::vector<ipset::DestroyOutcome> outcomes_;
  int errnum_ = 0;
  std::string what_;
  bool ok_ = false;
};

// False with a JavaScript exception pending.
bool NamesArg(Napi::Env env, const Napi::Value& v, std::vector<std::string>* out) {
  if (!v.IsArray()) return ThrowType(env, "names must be an array of strings");
  Napi::Array arr = v.As<Napi::Array>();
  if (arr.Length() > kMaxNames) return ThrowRange(env, "names: at most " + std::to_string(kMaxNames) + " sets");
  for (uint32_t i = 0; i < arr.Length(); i++) {
    Napi::Value n = arr.Get(i);
    const std::string at = "names[" + std::to_string(i) + "]";
    if (!n.IsString()) return ThrowType(env, at + " must be a string");
    std::string s = n.As<Napi::String>().Utf8Value();
    if (s.empty() || s.size() > ipset::kMaxSetName || s.find('\0') != std::string::npos) {
      return ThrowRange(env, at + " must be 1.." + std::to_string(ipset::kMaxSetName) + " bytes without NUL");
    }
    out->push_back(std::move(s));
  }
  return true;
}

}  // namespace

Napi::Value IpsetDestroy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string netns;
  std::vector<std::string> names;
  if (!NetnsPathArg(env, info[0], &netns) || !NamesArg(env, info[1], &names)) return env.Undefined();
  auto* w = new DestroyWorker(env, std::move(netns), std::move(names));
  return QueueWorker(w);
}

}  // namespace kpn
