#include "napi/rtnl_workers.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include "napi/errors.h"

namespace kpn {

namespace {

const char* KindVerb(RtnlLinkWorker::Kind k) {
  switch (k) {
    case RtnlLinkWorker::Kind::kGet: return "reading link ";
    case RtnlLinkWorker::Kind::kCreateDummy: return "creating dummy link ";
    case RtnlLinkWorker::Kind::kDelete: return "deleting link ";
  }
  return "";
}

Napi::Object LinkToJs(Napi::Env env, const rtnl::LinkInfo& l) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("index", Napi::Number::New(env, l.index));
  o.Set("name", Napi::String::New(env, l.name));
  o.Set("kind", Napi::String::New(env, l.kind));
  o.Set("flags", Napi::Number::New(env, l.flags));
  return o;
}

// Text as inet_ntop writes it (RFC 5952 for IPv6: lower case, longest zero run as ::), which is
// also how node:net prints addresses.
Napi::Object AddrToJs(Napi::Env env, const rtnl::AddrInfo& a) {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(a.family, a.addr, text, sizeof text);
  Napi::Object o = Napi::Object::New(env);
  o.Set("linkIndex", Napi::Number::New(env, a.linkIndex));
  o.Set("family", Napi::Number::New(env, a.family == AF_INET ? 4 : 6));
  o.Set("address", Napi::String::New(env, text));
  o.Set("prefixLength", Napi::Number::New(env, a.prefixLength));
  o.Set("scope", Napi::Number::New(env, a.scope));
  o.Set("flags", Napi::Number::New(env, a.flags));
  return o;
}

}  // namespace

RtnlLinkWorker::RtnlLinkWorker(Napi::Env env, RtnlSocket* owner, NetlinkSocket* sock, Kind kind, std::string name)
    : RtnlWorker(env, owner, sock), kind_(kind), name_(std::move(name)) {}

void RtnlLinkWorker::Execute() {
  switch (kind_) {
    case Kind::kGet: err_ = rtnl::GetLink(*sock_, name_, &link_); break;
    case Kind::kCreateDummy: err_ = rtnl::CreateDummyLink(*sock_, name_); break;
    case Kind::kDelete: err_ = rtnl::DeleteLink(*sock_, name_); break;
  }
}

void RtnlLinkWorker::OnOK() {
  Settle(err_, KindVerb(kind_) + name_, [this](Napi::Env env) {
    return kind_ == Kind::kGet ? Napi::Value(LinkToJs(env, link_)) : env.Undefined();
  });
}

RtnlApplyWorker::RtnlApplyWorker(Napi::Env env, RtnlSocket* owner, NetlinkSocket* sock, std::vector<rtnl::AddrOp> ops)
    : RtnlWorker(env, owner, sock), ops_(std::move(ops)) {}

void RtnlApplyWorker::Execute() { result_ = rtnl::ApplyAddrOps(*sock_, ops_); }

void RtnlApplyWorker::OnOK() {
  Napi::Env env = Env();
  Finish();
  if (result_.sendFailure.errnum) {
    deferred_.Reject(ErrnoError(env, result_.sendFailure.errnum, "applying addresses: " + result_.sendFailure.message).Value());
    return;
  }
  Napi::Array errors = Napi::Array::New(env, result_.errors.size());
  for (size_t i = 0; i < result_.errors.size(); i++) {
    const rtnl::AddrOpError& e = result_.errors[i];
    Napi::Object o = Napi::Object::New(env);
    o.Set("index", Napi::Number::New(env, double(e.index)));
    o.Set("errno", Napi::Number::New(env, e.errnum));
    o.Set("code", Napi::String::New(env, ErrnoName(e.errnum)));
    if (!e.extack.empty()) o.Set("extack", Napi::String::New(env, e.extack));
    errors.Set(uint32_t(i), o);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("applied", Napi::Number::New(env, double(ops_.size() - result_.errors.size())));
  out.Set("sends", Napi::Number::New(env, double(result_.sends)));
  out.Set("errors", errors);
  deferred_.Resolve(out);
}

RtnlAddrDumpWorker::RtnlAddrDumpWorker(Napi::Env env, RtnlSocket* owner, NetlinkSocket* sock, int32_t linkIndex)
    : RtnlWorker(env, owner, sock), linkIndex_(linkIndex) {}

void RtnlAddrDumpWorker::Execute() { err_ = rtnl::DumpAddrs(*sock_, linkIndex_, &addrs_); }

void RtnlAddrDumpWorker::OnOK() {
  Settle(err_, "dumping addresses", [this](Napi::Env env) {
    Napi::Array a = Napi::Array::New(env, addrs_.size());
    for (size_t i = 0; i < addrs_.size(); i++) a.Set(uint32_t(i), AddrToJs(env, addrs_[i]));
    return a;
  });
}

}  // namespace kpn
