// A failed conntrack call as a JavaScript Error: message, errno and its code name (ENOENT...).
#pragma once
#include <napi.h>

#include <string>

#include "ct_types.h"

namespace kpn::ct {

Napi::Error CtError(Napi::Env env, const std::string& prefix, const Failure& failure);

}  // namespace kpn::ct
