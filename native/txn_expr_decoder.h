// Decodes one rule expression (docs/wire-format.md, "Expressions").
#pragma once
#include "txn_types.h"
#include "wire_reader.h"

namespace kpn {
bool ReadExpr(WireReader& r, Expr* out);
}
