#!/usr/bin/env bash
# Builds one libFuzzer target with clang-14 (libFuzzer + ASan + UBSan) and runs it for N seconds
# from its committed seed corpus (seeds/<target>/).
# Usage: run-fuzz.sh [target] [seconds] [jobs]    target default txn_decoder, seconds 60, jobs 1
#        run-fuzz.sh [seconds] [jobs]             (the txn_decoder target, as before)
#        run-fuzz.sh --list
# Output under $FUZZ_OUT (default /tmp/kpn-fuzz): the fuzz-<target> binary, corpus-<target>/ (grows
# from the seeds), crashes-<target>/ (reproducers: run the binary with one as its argument).
set -euo pipefail
cd "$(dirname "$0")"

# The nftables batch encoder, for targets that build a batch (a decoded transaction's ops are read
# again by the decoder, one at a time, hence the txn/ readers).
ENCODER="../netlink/builder.cc ../netlink/attr.cc ../nft/batch.cc ../nft/data.cc ../nft/table.cc ../nft/chain.cc \
  ../nft/rule.cc ../nft/set.cc ../nft/elements.cc $(echo ../nft/expr*.cc) \
  ../txn/decoder.cc ../txn/element_list.cc ../txn/expr_decoder.cc ../txn/wire_reader.cc"
# Each target: its sources, relative to native/fuzz (includes are relative to native/, as in the
# addon's build). A new target is one more line here plus its seeds/<target>/ directory.
declare -A SOURCES=(
  [txn_decoder]="fuzz_txn_decoder.cc $ENCODER"
  [notify]="fuzz_notify.cc ../nft/notify.cc ../nft/notify_commits.cc ../netlink/attr.cc"
  [nft_dump]="fuzz_nft_dump.cc ../nft/dump_parse.cc ../nft/rule_match.cc $ENCODER"
  [nl_acks]="fuzz_nl_acks.cc ../netlink/request.cc ../netlink/socket.cc ../nft/commit_replies.cc $ENCODER"
  [ct_messages]="fuzz_ct_messages.cc ../conntrack/ct_messages.cc ../conntrack/ct_stats_messages.cc ../netlink/attr_iter.cc ../conntrack/ct_queries.cc \
    ../netlink/builder.cc ../netlink/attr.cc"
  [rtnl_replies]="fuzz_rtnl_replies.cc ../rtnl/rtnl_messages.cc ../rtnl/addr_replies.cc ../rtnl/addr_ops.cc \
    ../netlink/request.cc ../netlink/socket.cc ../netlink/builder.cc ../netlink/attr.cc"
  [ipvs_ops]="fuzz_ipvs_ops.cc ../ipvs/op_decoder.cc ../ipvs/encode.cc ../ipvs/replies.cc ../txn/wire_reader.cc \
    ../netlink/builder.cc ../netlink/attr.cc ../netlink/attr_iter.cc"
  [ipvs_replies]="fuzz_ipvs_replies.cc ../ipvs/replies.cc ../ipvs/apply_replies.cc ../ipvs/encode.cc \
    ../netlink/builder.cc ../netlink/attr.cc ../netlink/attr_iter.cc"
)

if [[ "${1:-}" == "--list" ]]; then
  printf '%s\n' "${!SOURCES[@]}" | sort
  exit 0
fi
target=txn_decoder
if [[ $# -gt 0 && ! "$1" =~ ^[0-9]+$ ]]; then
  target="$1"
  shift
fi
if [[ -z "${SOURCES[$target]:-}" ]]; then
  echo "unknown fuzz target '$target'; known: $(printf '%s ' "${!SOURCES[@]}")" >&2
  exit 2
fi
secs="${1:-60}"
jobs="${2:-1}"
if ! command -v clang++-14 >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 libclang-rt-14-dev >/dev/null
fi
out="${FUZZ_OUT:-/tmp/kpn-fuzz}"
corpus="$out/corpus-$target"
crashes="$out/crashes-$target"
mkdir -p "$corpus" "$crashes"
# shellcheck disable=SC2086 # the source lists are meant to split
clang++-14 -std=c++17 -g -O1 -pthread -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I.. \
  -o "$out/fuzz-$target" ${SOURCES[$target]}
cp -n "seeds/$target"/* "$corpus/" 2>/dev/null || true
parallel=()
if [[ "$jobs" -gt 1 ]]; then parallel=(-jobs="$jobs" -workers="$jobs"); fi
exec "$out/fuzz-$target" "$corpus" -max_total_time="$secs" -max_len=65536 -artifact_prefix="$crashes/" \
  -print_final_stats=1 "${parallel[@]}"
