// NftSocket's results as JavaScript values: commit errors, table lists, table dumps (main thread only).
#pragma once
#include <napi.h>

#include <vector>

#include "nft/commit.h"
#include "nft/dump.h"

namespace kpn {

Napi::Error CommitErrorToJs(Napi::Env env, const nft::CommitResult& r);
Napi::Array TablesToJs(Napi::Env env, const std::vector<nft::TableId>& tables);
Napi::Object TableDumpToJs(Napi::Env env, const nft::TableDump& d);

}  // namespace kpn
