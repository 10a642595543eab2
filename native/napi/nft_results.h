// NftSocket's results as JavaScript values: commit errors, table lists, table dumps (main thread only).
#pragma once
#include <napi.h>

#include <vector>

#include "nft/commit.h"
#include "nft/dump.h"
#include "nft/lookup.h"

namespace kpn {

Napi::Error CommitErrorToJs(Napi::Env env, const nft::CommitResult& r);
Napi::Array TablesToJs(Napi::Env env, const std::vector<nft::TableId>& tables);
Napi::Object TableDumpToJs(Napi::Env env, const nft::TableDump& d);
// [{ found, element? }] per key, elements as TableDumpToJs gives them.
Napi::Array ElemLookupsToJs(Napi::Env env, const std::vector<nft::ElemLookup>& found);
// { rules: [{ chain, handle, exprs, jumps, matches? }] }: matches[i] on rule i when compared.
Napi::Object ChainRulesToJs(Napi::Env env, const std::vector<nft::RuleInfo>& rules, const std::vector<bool>& matches);

}  // namespace kpn
