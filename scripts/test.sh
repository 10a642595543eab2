#!/usr/bin/env bash
# The whole test suite. On a fresh machine it first installs what it needs (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
files=$(find dist/test -name '*.test.js' | sort)
if [ -n "${TEST_FILTER:-}" ]; then files=$(echo "$files" | grep -E "$TEST_FILTER" || true); fi
# The image's Node.js (the LTS line the Dockerfile names, pinned in scripts/node-lts.sh), fetched once:
# the host suite runs under it beside the system Node (scripts/host-tests.sh, docs/testing.md).
# KPN_NODE_LTS= (empty) runs the system Node only.
lts_rc=0
if [ -z "${KPN_NODE_LTS+set}" ]; then
  KPN_NODE_LTS=$(bash scripts/node-lts.sh) || { lts_rc=$?; echo "test.sh: ${KPN_NODE_LTS:-scripts/node-lts.sh failed}"; KPN_NODE_LTS=; }
  [ "$lts_rc" = 77 ] && lts_rc=0 # no registry here: said in one line, the suite runs under the system Node
fi
export KPN_NODE_LTS
# The upstream tier (test/upstream/, docs/testing-upstream.md) runs with the host suite against one
# real kube-apiserver started here for all its files (a second one for the LTS run: host-tests.sh).
. scripts/upstream/tier.sh
# The host suite, then the IPVS suite in a guest kernel (scripts/guest-tests.sh); both always run.
host=0; if [ -n "$files" ]; then bash scripts/host-tests.sh "$KPN_NODE_LTS" $files || host=$?; fi
upstream_stop
guest=0; bash scripts/guest-tests.sh || guest=$?
echo "test.sh: host suite exit $host, IPVS guest suite exit $guest, upstream set-up exit $upstream, LTS Node fetch exit $lts_rc"
[ "$host" = 0 ] && [ "$guest" = 0 ] && [ "$upstream" = 0 ] && [ "$lts_rc" = 0 ]
