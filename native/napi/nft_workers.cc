#include "napi/nft_workers.h"

#include "napi/errors.h"
#include "napi/nft_results.h"
#include "nft/rule_match.h"

namespace kpn {

CommitWorker::CommitWorker(Napi::Env env, NftSocket* owner, NetlinkSocket* sock, Transaction txn, Napi::Buffer<uint8_t> buf)
    : NftWorker(env, owner, sock), bufRef_(Napi::Persistent(buf)), txn_(std::move(txn)) {}

void CommitWorker::Execute() { result_ = nft::Commit(*sock_, txn_); }

void CommitWorker::OnOK() {
  Napi::Env env = Env();
  Finish();
  if (!result_.localFailure.empty()) {
    deferred_.Reject(Napi::Error::New(env, "nftables commit failed: " + result_.localFailure).Value());
  } else if (!result_.errors.empty()) {
    deferred_.Reject(CommitErrorToJs(env, result_).Value());
  } else {
    Napi::Object o = Napi::Object::New(env);
    o.Set("messages", Napi::Number::New(env, result_.messages));
    o.Set("sends", Napi::Number::New(env, result_.sends));
    o.Set("bytes", Napi::Number::New(env, double(result_.bytes)));
    deferred_.Resolve(o);
  }
}

void ListTablesWorker::Execute() { err_ = nft::ListTables(*sock_, &tables_); }

void ListTablesWorker::OnOK() {
  Settle(err_, "listing nftables tables", [this](Napi::Env env) { return TablesToJs(env, tables_); });
}

void GenerationWorker::Execute() { err_ = nft::GetGeneration(*sock_, &gen_); }

void GenerationWorker::OnOK() {
  Settle(err_, "reading the nftables ruleset generation", [this](Napi::Env env) { return Napi::Number::New(env, gen_); });
}

DumpTableWorker::DumpTableWorker(Napi::Env env, NftSocket* owner, NetlinkSocket* sock, uint8_t family, std::string table,
                                 bool withElements, std::string onlySet)
    : NftWorker(env, owner, sock), family_(family), table_(std::move(table)), withElements_(withElements), onlySet_(std::move(onlySet)) {}

void DumpTableWorker::Execute() { err_ = nft::DumpTable(*sock_, family_, table_, withElements_, &dump_, onlySet_); }

void DumpTableWorker::OnOK() {
  Settle(err_, "dumping nftables table " + table_ + " (family " + std::to_string(family_) + ")",
         [this](Napi::Env env) { return TableDumpToJs(env, dump_); });
}

GetElementsWorker::GetElementsWorker(Napi::Env env, NftSocket* owner, NetlinkSocket* sock, uint8_t family, std::string table,
                                     std::string set, std::vector<Bytes> keys)
    : NftWorker(env, owner, sock), family_(family), table_(std::move(table)), set_(std::move(set)), keys_(std::move(keys)) {}

void GetElementsWorker::Execute() { err_ = nft::GetElements(*sock_, family_, table_, set_, keys_, &found_); }

void GetElementsWorker::OnOK() {
  Settle(err_, "getting elements of set " + set_ + " in table " + table_ + " (family " + std::to_string(family_) + ")",
         [this](Napi::Env env) { return ElemLookupsToJs(env, found_); });
}

DumpChainWorker::DumpChainWorker(Napi::Env env, NftSocket* owner, NetlinkSocket* sock, uint8_t family, std::string table,
                                 std::string chain, bool compare, std::vector<ExpectedRule> expected)
    : NftWorker(env, owner, sock), family_(family), table_(std::move(table)), chain_(std::move(chain)), compare_(compare),
      expected_(std::move(expected)) {}

void DumpChainWorker::Execute() {
  err_ = nft::DumpChainRules(*sock_, family_, table_, chain_, &rules_);
  if (err_.errnum || !compare_) return;
  for (size_t i = 0; i < rules_.size() && i < expected_.size(); i++) {
    const nft::RuleInfo& r = rules_[i];
    const ExpectedRule& e = expected_[i];
    matches_.push_back(r.userdata == e.userdata &&
                       nft::ExprsCover(e.exprs.data(), e.exprs.size(), r.exprsRaw.data(), r.exprsRaw.size()));
  }
}

void DumpChainWorker::OnOK() {
  Settle(err_, "dumping chain " + chain_ + " of table " + table_ + " (family " + std::to_string(family_) + ")",
         [this](Napi::Env env) { return ChainRulesToJs(env, rules_, matches_); });
}

}  // namespace kpn
