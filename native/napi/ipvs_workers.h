// The workers of IpvsSocket's methods: the netlink exchange on the libuv pool, the result turned
// into JavaScript (or a rejection carrying errno and code) back on the main thread.
#pragma once
#include <napi.h>

#include <vector>

#include "ipvs/apply.h"
#include "ipvs/requests.h"
#include "napi/ipvs_socket.h"
#include "napi/socket_worker.h"

namespace kpn {

class IpvsWorker : public SocketWorker<IpvsSocket> {
 public:
  IpvsWorker(Napi::Env env, IpvsSocket* owner, NetlinkSocket* sock, uint16_t familyId);

 protected:
  void OnOK() override;
  // The result once the worker ran; err_ set means reject with it.
  virtual Napi::Value Result(Napi::Env env) = 0;
  virtual std::string What() const = 0;  // "dumping IPVS services", for the rejection's message
  uint16_t familyId_;
  RequestError err_;
};

class IpvsResolveWorker : public IpvsWorker {
 public:
  using IpvsWorker::IpvsWorker;
  void Execute() override;
 private:
  Napi::Value Result(Napi::Env env) override;
  std::string What() const override { return "resolving the IPVS generic netlink family"; }
};

class IpvsApplyWorker : public IpvsWorker {
 public:
  IpvsApplyWorker(Napi::Env env, IpvsSocket* owner, NetlinkSocket* sock, uint16_t familyId, std::vector<ipvs::Op> ops);
  void Execute() override;
 private:
  Napi::Value Result(Napi::Env env) override;
  std::string What() const override { return "applying IPVS ops"; }
  std::vector<ipvs::Op> ops_;
  ipvs::ApplyResult result_;
};

class IpvsDumpWorker : public IpvsWorker {
 public:
  using IpvsWorker::IpvsWorker;
  void Execute() override;
 private:
  Napi::Value Result(Napi::Env env) override;
  std::string What() const override { return "dumping IPVS services"; }
  std::vector<ipvs::ServiceState> services_;
};

class IpvsDestsWorker : public IpvsWorker {
 public:
  IpvsDestsWorker(Napi::Env env, IpvsSocket* owner, NetlinkSocket* sock, uint16_t familyId, ipvs::ServiceKey key);
  void Execute() override;
 private:
  Napi::Value Result(Napi::Env env) override;
  std::string What() const override { return "dumping the destinations of an IPVS service"; }
  ipvs::ServiceKey key_;
  std::vector<ipvs::DestEntry> dests_;
};

class IpvsTimeoutsWorker : public IpvsWorker {
 public:
  // set: write `t` (SET_CONFIG); else read them (GET_CONFIG).
  IpvsTimeoutsWorker(Napi::Env env, IpvsSocket* owner, NetlinkSocket* sock, uint16_t familyId, bool set, ipvs::Timeouts t);
  void Execute() override;
 private:
  Napi::Value Result(Napi::Env env) override;
  std::string What() const override { return set_ ? "setting IPVS timeouts" : "reading IPVS timeouts"; }
  bool set_;
  ipvs::Timeouts t_;
};

}  // namespace kpn
