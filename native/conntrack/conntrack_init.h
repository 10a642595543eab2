// Entry point the addon calls to add the conntrack functions to its exports.
#pragma once
#include <napi.h>

void InitConntrack(Napi::Env env, Napi::Object exports);
