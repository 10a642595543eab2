// The workers of NftSocket's methods: the netlink exchange runs on the libuv pool, the results
// are turned into JavaScript values (or a rejection) back on the main thread.
#pragma once
#include <napi.h>

#include "napi/nft_socket.h"
#include "napi/socket_worker.h"
#include "netlink/socket.h"
#include "nft/commit.h"
#include "nft/dump.h"
#include "nft/lookup.h"

namespace kpn {

using NftWorker = SocketWorker<NftSocket>;

class CommitWorker : public NftWorker {
 public:
  // `txn` was decoded from `buf` and reads it again while encoding: the worker holds a reference
  // to the Buffer until it is deleted, back on the main thread.
  CommitWorker(Napi::Env env, NftSocket* owner, NetlinkSocket* sock, Transaction txn, Napi::Buffer<uint8_t> buf);
  void Execute() override;
  void OnOK() override;

 private:
  Napi::Reference<Napi::Buffer<uint8_t>> bufRef_;
  Transaction txn_;
  nft::CommitResult result_;
};

class ListTablesWorker : public NftWorker {
 public:
  using NftWorker::NftWorker;
  void Execute() override;
  void OnOK() override;

 private:
  std::vector<nft::TableId> tables_;
  RequestError err_;
};

class GenerationWorker : public NftWorker {
 public:
  using NftWorker::NftWorker;
  void Execute() override;
  void OnOK() override;

 private:
  uint32_t gen_ = 0;
  RequestError err_;
};

class DumpTableWorker : public NftWorker {
 public:
  DumpTableWorker(Napi::Env env, NftSocket* owner, NetlinkSocket* sock, uint8_t family, std::string table, bool withElements,
                  std::string onlySet);
  void Execute() override;
  void OnOK() override;

 private:
  uint8_t family_;
  std::string table_;
  bool withElements_;
  std::string onlySet_;
  nft::TableDump dump_;
  RequestError err_;
};

class GetElementsWorker : public NftWorker {
 public:
  GetElementsWorker(Napi::Env env, NftSocket* owner, NetlinkSocket* sock, uint8_t family, std::string table, std::string set,
                    std::vector<Bytes> keys);
  void Execute() override;
  void OnOK() override;

 private:
  uint8_t family_;
  std::string table_, set_;
  std::vector<Bytes> keys_;
  std::vector<nft::ElemLookup> found_;
  RequestError err_;
};

// A rule we would send, as the kernel would receive it (nft/rule_match.h).
struct ExpectedRule {
  Bytes exprs;
  Bytes userdata;
};

class DumpChainWorker : public NftWorker {
 public:
  DumpChainWorker(Napi::Env env, NftSocket* owner, NetlinkSocket* sock, uint8_t family, std::string table, std::string chain,
                  bool compare, std::vector<ExpectedRule> expected);
  void Execute() override;
  void OnOK() override;

 private:
  uint8_t family_;
  std::string table_, chain_;
  bool compare_;
  std::vector<ExpectedRule> expected_;
  std::vector<nft::RuleInfo> rules_;
  std::vector<bool> matches_;  // per rule with an expected counterpart
  RequestError err_;
};

}  // namespace kpn
