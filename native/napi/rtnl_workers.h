// The workers of RtnlSocket's methods: the rtnetlink exchange runs on the libuv pool, the result
// becomes JavaScript (or a rejection carrying errno and code) back on the main thread.
#pragma once
#include <napi.h>

#include <string>
#include <vector>

#include "napi/rtnl_socket.h"
#include "napi/socket_worker.h"
#include "netlink/request.h"
#include "netlink/socket.h"
#include "rtnl/rtnl_ops.h"
#include "rtnl/rtnl_types.h"

namespace kpn {

using RtnlWorker = SocketWorker<RtnlSocket>;

// link(name) -> {index, name, kind, flags}; createDummyLink(name) and deleteLink(name) -> undefined.
// All reject with the kernel's errno (ENODEV for a missing link, EEXIST, EOPNOTSUPP, ...).
class RtnlLinkWorker : public RtnlWorker {
 public:
  using Kind = RtnlLinkCall;
  RtnlLinkWorker(Napi::Env env, RtnlSocket* owner, NetlinkSocket* sock, Kind kind, std::string name);
  void Execute() override;
  void OnOK() override;

 private:
  Kind kind_;
  std::string name_;
  rtnl::LinkInfo link_;
  RequestError err_;
};

class RtnlApplyWorker : public RtnlWorker {
 public:
  RtnlApplyWorker(Napi::Env env, RtnlSocket* owner, NetlinkSocket* sock, std::vector<rtnl::AddrOp> ops);
  void Execute() override;
  void OnOK() override;

 private:
  std::vector<rtnl::AddrOp> ops_;
  rtnl::AddrApplyResult result_;
};

class RtnlAddrDumpWorker : public RtnlWorker {
 public:
  RtnlAddrDumpWorker(Napi::Env env, RtnlSocket* owner, NetlinkSocket* sock, int32_t linkIndex);
  void Execute() override;
  void OnOK() override;

 private:
  int32_t linkIndex_;
  std::vector<rtnl::AddrInfo> addrs_;
  RequestError err_;
};

}  // namespace kpn
