#include "napi/ipvs_workers.h"

#include "napi/errors.h"
#include "napi/ipvs_results.h"

namespace kpn {

IpvsWorker::IpvsWorker(Napi::Env env, IpvsSocket* owner, NetlinkSocket* sock, uint16_t familyId)
    : SocketWorker(env, owner, sock), familyId_(familyId) {}

void IpvsWorker::OnOK() {
  Settle(err_, What(), [this](Napi::Env env) { return Result(env); });
}

void IpvsResolveWorker::Execute() { err_ = ipvs::ResolveFamily(*sock_, &familyId_); }

Napi::Value IpvsResolveWorker::Result(Napi::Env env) {
  owner_->SetFamilyId(familyId_);
  return Napi::Number::New(env, familyId_);
}

IpvsApplyWorker::IpvsApplyWorker(Napi::Env env, IpvsSocket* owner, NetlinkSocket* sock, uint16_t familyId, std::vector<ipvs::Op> ops)
    : IpvsWorker(env, owner, sock, familyId), ops_(std::move(ops)) {}

void IpvsApplyWorker::Execute() {
  result_ = ipvs::Apply(*sock_, familyId_, ops_);
  if (result_.fatalErrno) err_ = RequestError{result_.fatalErrno, result_.fatal};
}

Napi::Value IpvsApplyWorker::Result(Napi::Env env) { return ApplyResultToJs(env, result_); }

void IpvsDumpWorker::Execute() { err_ = ipvs::DumpAll(*sock_, familyId_, &services_); }

Napi::Value IpvsDumpWorker::Result(Napi::Env env) { return ServicesToJs(env, services_); }

IpvsDestsWorker::IpvsDestsWorker(Napi::Env env, IpvsSocket* owner, NetlinkSocket* sock, uint16_t familyId, ipvs::ServiceKey key)
    : IpvsWorker(env, owner, sock, familyId), key_(key) {}

void IpvsDestsWorker::Execute() { err_ = ipvs::DumpDests(*sock_, familyId_, key_, &dests_); }

Napi::Value IpvsDestsWorker::Result(Napi::Env env) { return DestsToJs(env, dests_); }

IpvsTimeoutsWorker::IpvsTimeoutsWorker(Napi::Env env, IpvsSocket* owner, NetlinkSocket* sock, uint16_t familyId, bool set,
                                       ipvs::Timeouts t)
    : IpvsWorker(env, owner, sock, familyId), set_(set), t_(t) {}

void IpvsTimeoutsWorker::Execute() {
  err_ = set_ ? ipvs::SetTimeouts(*sock_, familyId_, t_) : ipvs::GetTimeouts(*sock_, familyId_, &t_);
}

Napi::Value IpvsTimeoutsWorker::Result(Napi::Env env) {
  return set_ ? env.Undefined() : Napi::Value(TimeoutsToJs(env, t_));
}

}  // namespace kpn
