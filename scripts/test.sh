#!/usr/bin/env bash
# The whole test suite. On a fresh machine it first installs what it needs (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
files=$(find dist/test -name '*.test.js' | sort)
if [ -n "${TEST_FILTER:-}" ]; then files=$(echo "$files" | grep -E "$TEST_FILTER" || true); fi
# The upstream tier (test/upstream/, docs/testing-upstream.md) runs with the host suite against one
# real kube-apiserver started here for all its files.
. scripts/upstream/tier.sh
# The host suite, then the IPVS suite in a guest kernel (scripts/guest-tests.sh); both always run.
host=0; if [ -n "$files" ]; then node --test --test-concurrency=1 $files || host=$?; fi
upstream_stop
guest=0; bash scripts/guest-tests.sh || guest=$?
echo "test.sh: host suite exit $host, IPVS guest suite exit $guest, upstream set-up exit $upstream"
[ "$host" = 0 ] && [ "$guest" = 0 ] && [ "$upstream" = 0 ]
