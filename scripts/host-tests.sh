#!/usr/bin/env bash
# The host suite under each Node.js runtime: the system's `node` (20.19+ on our machines) and the
# image's (scripts/node-lts.sh), side by side, each one file at a time (--test-concurrency=1, as the
# suite is written). Called by scripts/test.sh after scripts/upstream/tier.sh; docs/testing.md.
#
#   bash scripts/host-tests.sh LTS_NODE FILE...      (LTS_NODE empty: the system Node only)
#
# Why side by side: the suite mostly waits (timers, the kernel, child processes): run file by file it
# used about 350 s of CPU in 1275 s of wall time (measured with other work on the machine). The two runs share nothing: namespaces have random names,
# servers take free ports, files go to temporary directories, and each run has an upstream control
# plane of its own (the tier's, started by tier.sh, for the system Node; a second one here for the
# other), each in its own network namespace. Two things keep them from disturbing each other:
# - The heaviest files and one that is sensitive to load (ALONE below: a 30,000-Service sync killed and
#   restarted under continuous traffic that must lose no request; a probe loop that keeps a CPU busy
#   for a minute; repairs of foreign changes, each within 1 s) run alone:
#   each file takes a lock first (test/helpers/alone-lock.js, preloaded), shared by the others,
#   exclusive for these, so the other run waits between two files while one runs.
# - node --test runs its files in name order, so the LTS run starts halfway through the list and
#   wraps around: the two runs are in different parts of the suite (traffic/ against k8s/, ...).
set -uo pipefail
cd "$(dirname "$0")/.."
lts=$1; shift
files=("$@")
[ ${#files[@]} -gt 0 ] || exit 0
reporter=test/helpers/file-durations.mjs
ALONE='/(fault/sigkill-full-sync|fault/api-outage|traffic/tamper)\.test\.js$'
work=$(mktemp -d /tmp/kpn-host-tests.XXXXXX)
cp_dir=
cleanup() {
  [ -n "$cp_dir" ] && bash scripts/upstream/control-plane.sh stop "$cp_dir"
  rm -rf "$work"
}
trap cleanup EXIT

run() { # run NODE LABEL FILE...: the files under NODE, spec on stdout, per-file seconds in $work/LABEL.tsv
  local node=$1 label=$2; shift 2
  "$node" --require ./test/helpers/alone-lock.js --test --test-concurrency=1 --test-reporter=spec \
    --test-reporter-destination=stdout --test-reporter="./$reporter" --test-reporter-destination="$work/$label.tsv" "$@"
}

summary() { # LABEL NAME EXIT SECONDS
  echo "host-tests: $2: exit $3 after $4 s; slowest files (s, failed, file):"
  head -n 8 "$work/$1.tsv" 2>/dev/null | sed 's/^/  /'
}
sys_label="node $(node --version)"
if [ -z "$lts" ]; then
  t0=$SECONDS; rc=0; run node sys "${files[@]}" || rc=$?
  summary sys "$sys_label" "$rc" $((SECONDS - t0))
  [ "$rc" = 0 ]; exit
fi
lts_label="node $("$lts" --version) ($lts)"

# test/prometheus checks the shipped alert rules and dashboard queries against a real Prometheus
# (about 5 min, mostly waiting for scrapes and alerts): nothing in it depends on the runtime that the
# rest of the suite does not already run under both, so it runs once, under the system Node.
ONCE='^dist/test/prometheus/'
lts_files=()
for f in "${files[@]}"; do [[ $f =~ $ONCE ]] || lts_files+=("$f"); done
half=$(( ${#lts_files[@]} / 2 ))
second=("${lts_files[@]:half}"); first=("${lts_files[@]:0:half}")
# The upstream tier's files need a control plane per run: a second one for the LTS run.
lts_cp=(); lts_rc=0
if [ -n "${KPN_UPSTREAM_DIR:-}" ] && printf '%s\n' "${files[@]}" | grep -q '^dist/test/upstream/'; then
  if cp_out=$(bash scripts/upstream/control-plane.sh start); then
    while read -r _ kv; do lts_cp+=("$kv"); done < <(echo "$cp_out" | grep '^export ')
    cp_dir=$(echo "$cp_out" | sed -n 's/^export KPN_UPSTREAM_DIR=//p')
  else
    echo "host-tests: the second upstream control plane did not start (above): the LTS run leaves out the tier"
    mapfile -t second < <(printf '%s\n' "${second[@]}" | grep -v '^dist/test/upstream/')
    mapfile -t first < <(printf '%s\n' "${first[@]}" | grep -v '^dist/test/upstream/')
    lts_rc=1
  fi
fi

echo "host-tests: the host suite under $sys_label (below, as it runs) and under $lts_label (printed when it ends), side by side"
export KPN_TEST_LOCK="$work/lock" KPN_TEST_ALONE="$ALONE"
: > "$KPN_TEST_LOCK"
t0=$SECONDS
# `node` on PATH is the LTS too in its run (a test that starts `node` by name).
( for kv in "${lts_cp[@]}"; do export "${kv?}"; done
  export PATH="$(dirname "$lts"):$PATH"
  rc=0
  [ ${#second[@]} = 0 ] || run "$lts" lts-2 "${second[@]}" || rc=1
  [ ${#first[@]} = 0 ] || run "$lts" lts-1 "${first[@]}" || rc=1
  cat "$work"/lts-*.tsv 2>/dev/null | sort -t$'\t' -k1,1 -rn > "$work/lts.tsv"
  echo $rc > "$work/lts.rc"; echo $((SECONDS - t0)) > "$work/lts.s" ) > "$work/lts.out" 2>&1 &
lts_pid=$!
sys_rc=0; run node sys "${files[@]}" || sys_rc=$?
sys_s=$((SECONDS - t0))
wait "$lts_pid"
echo; echo "===== the host suite under $lts_label ====="
cat "$work/lts.out"
[ "$(cat "$work/lts.rc" 2>/dev/null)" = 0 ] || lts_rc=1
lts_s=$(cat "$work/lts.s" 2>/dev/null || echo '?')
summary sys "$sys_label" "$sys_rc" "$sys_s"
summary lts "$lts_label" "$(cat "$work/lts.rc" 2>/dev/null || echo '?')" "$lts_s"
[ "$sys_rc" = 0 ] && [ "$lts_rc" = 0 ]
