#!/usr/bin/env bash
# The IPVS suite: every dist/test/guest/*.guest-test.js, run in ONE boot of a guest kernel that has
# IPVS and the dummy link driver (this machine's kernel has neither). Builds the guest's assets the
# first time (system packages, Debian's kernel, an initramfs: scripts/ipvs-guest/). docs/testing-ipvs.md.
# Called by scripts/test.sh after the host suite; TEST_FILTER applies here too.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(find dist/test/guest -name '*.guest-test.js' 2>/dev/null | sort)
if [ -n "${TEST_FILTER:-}" ]; then files=$(echo "$files" | grep -E "$TEST_FILTER" || true); fi
if [ -z "$files" ]; then echo "guest-tests: no guest test selected"; exit 0; fi
bash scripts/ipvs-guest/build-guest.sh >&2
cmd="node --test --test-concurrency=1 $(echo $files)"
# Under the image's Node too (KPN_NODE_LTS, set by scripts/test.sh), in the same boot: the files that
# drive the addon's IPVS and rtnetlink sockets and the IPVS proxier on the real kernel (about a minute).
# The mode's end-to-end files take about ten minutes more under emulation, so they run once, under the
# system Node (docs/testing.md).
lts_files=$(echo "$files" | grep -E '/(ipvs-proxier|ipvs-socket|rtnl)\.guest-test\.js$' || true)
if [ -n "${KPN_NODE_LTS:-}" ] && [ -n "$lts_files" ]; then
  cmd="$cmd; a=\$?; echo '===== under $("$KPN_NODE_LTS" --version) ($KPN_NODE_LTS)'; $KPN_NODE_LTS --test --test-concurrency=1 $(echo $lts_files); b=\$?; [ \$a = 0 ] && [ \$b = 0 ]"
fi
# Two vCPUs: the tests run one at a time, but node's GC and the addon's workers are threads of their own.
# The guest is emulated (TCG): on a loaded host a sync and a probe take several times as long as on
# the host, so the traffic harness's waits are scaled (KPN_TEST_TIMEOUT_SCALE, test/traffic/harness.ts),
# under either runtime.
exec bash scripts/ipvs-guest/run-ipvs-guest.sh -c "${GUEST_CPUS:-2}" -m "${GUEST_MEM_MB:-2048}" -t "${GUEST_TIMEOUT_S:-1500}" \
  "export KPN_TEST_TIMEOUT_SCALE=${KPN_TEST_TIMEOUT_SCALE:-3}; $cmd"
