#!/usr/bin/env bash
# Builds the transaction-decoder (+ batch encoder) fuzz target with clang-14 (libFuzzer + ASan + UBSan) and runs it
# for N seconds (default 60) from the committed seed corpus. Usage: run-fuzz.sh [seconds] [jobs]
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-60}"
if ! command -v clang++-14 >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 libclang-rt-14-dev >/dev/null
fi
out="${FUZZ_OUT:-/tmp/kpn-fuzz}"
mkdir -p "$out/corpus" "$out/crashes"
clang++-14 -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -o "$out/fuzz_txn_decoder" fuzz_txn_decoder.cc ../txn_decoder.cc ../txn_expr_decoder.cc ../wire_reader.cc \
  ../nl_builder.cc ../nl_attr.cc ../nft/batch.cc ../nft/data.cc ../nft/table.cc ../nft/chain.cc ../nft/rule.cc \
  ../nft/set.cc ../nft/elements.cc ../nft/expr*.cc
cp -n seeds/* "$out/corpus/" 2>/dev/null || true
exec "$out/fuzz_txn_decoder" "$out/corpus" -max_total_time="$secs" -max_len=65536 \
  -artifact_prefix="$out/crashes/" -print_final_stats=1
