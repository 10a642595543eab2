// Decodes one rule expression (docs/wire-format.md, "Expressions").
#pragma once
#include "txn/types.h"
#include "txn/wire_reader.h"

namespace kpn {
bool ReadExpr(WireReader& r, Expr* out);
}
