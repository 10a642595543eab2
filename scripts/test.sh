#!/usr/bin/env bash
# The whole test suite. On a fresh machine it first installs what it needs (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
files=$(find dist/test -name '*.test.js' | sort)
if [ -n "${TEST_FILTER:-}" ]; then files=$(echo "$files" | grep -E "$TEST_FILTER" || true); fi
exec node --test --test-concurrency=1 $files
