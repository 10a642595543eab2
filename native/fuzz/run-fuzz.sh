#!/usr/bin/env bash
# Builds a fuzz target with clang-14 (libFuzzer + ASan + UBSan) and runs it for N seconds (default
# 60) from its committed seed corpus. Usage: run-fuzz.sh [seconds] [target]
#   txn_decoder (default)  the transaction decoder + nftables batch encoder   (seeds/)
#   notify                 the change-notification parser + per-commit grouper (seeds-notify/)
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-60}"
target="${2:-txn_decoder}"
case "$target" in
  txn_decoder)
    sources=(fuzz_txn_decoder.cc ../txn_decoder.cc ../txn_expr_decoder.cc ../wire_reader.cc ../nl_builder.cc ../nl_attr.cc
      ../nft/batch.cc ../nft/data.cc ../nft/table.cc ../nft/chain.cc ../nft/rule.cc ../nft/set.cc ../nft/elements.cc ../nft/expr*.cc)
    seeds=seeds; maxlen=65536 ;;
  notify)
    sources=(fuzz_notify.cc ../nft/notify.cc ../nft/notify_commits.cc ../nl_attr.cc)
    seeds=seeds-notify; maxlen=16384 ;;
  *) echo "unknown fuzz target '$target' (txn_decoder or notify)" >&2; exit 2 ;;
esac
if ! command -v clang++-14 >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 libclang-rt-14-dev >/dev/null
fi
out="${FUZZ_OUT:-/tmp/kpn-fuzz}/$target"
mkdir -p "$out/corpus" "$out/crashes"
clang++-14 -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -o "$out/fuzz_$target" "${sources[@]}"
cp -n "$seeds"/* "$out/corpus/" 2>/dev/null || true
exec "$out/fuzz_$target" "$out/corpus" -max_total_time="$secs" -max_len="$maxlen" \
  -artifact_prefix="$out/crashes/" -print_final_stats=1
