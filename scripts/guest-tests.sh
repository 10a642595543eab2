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
# Two vCPUs: the tests run one at a time, but node's GC and the addon's workers are threads of their own.
# The guest is emulated (TCG): on a loaded host a sync and a probe take several times as long as on
# the host, so the traffic harness's waits are scaled (KPN_TEST_TIMEOUT_SCALE, test/traffic/harness.ts).
exec bash scripts/ipvs-guest/run-ipvs-guest.sh -c "${GUEST_CPUS:-2}" -m "${GUEST_MEM_MB:-2048}" -t "${GUEST_TIMEOUT_S:-1500}" \
  "KPN_TEST_TIMEOUT_SCALE=${KPN_TEST_TIMEOUT_SCALE:-3} node --test --test-concurrency=1 $(echo $files)"
