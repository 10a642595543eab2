#!/usr/bin/env bash
# Captures real IPVS replies as seeds/ipvs_replies/*.bin (capture_ipvs_seeds.cc) in a scratch
# network namespace. Needs a kernel with IPVS: build on the host, run in the guest, e.g.
#   bash native/fuzz/capture-ipvs-seeds.sh --build
#   bash /work/shared/ipvs-guest/run-ipvs-guest.sh -w "$PWD/native/fuzz/seeds" 'bash native/fuzz/capture-ipvs-seeds.sh'
set -euo pipefail
cd "$(dirname "$0")"
bin="${FUZZ_OUT:-/tmp/kpn-fuzz}/capture_ipvs_seeds"
if [[ "${1:-}" == "--build" ]]; then
  mkdir -p "$(dirname "$bin")"
  cxx="$(command -v clang++-14 || command -v g++)"
  "$cxx" -std=c++17 -O1 -Wall -I.. -o "$bin" capture_ipvs_seeds.cc ../ipvs/encode.cc ../ipvs/requests.cc \
    ../ipvs/replies.cc ../netlink/builder.cc ../netlink/attr.cc ../netlink/attr_iter.cc ../netlink/request.cc \
    ../netlink/socket.cc -pthread
  exit 0
fi
seeds="$(realpath -m "${1:-seeds}")/ipvs_replies"
mkdir -p "$seeds"
ns="kpnipvsseeds-$$"
ip netns add "$ns"
trap 'ip netns del "$ns"' EXIT
ip netns exec "$ns" ip link set lo up
ip netns exec "$ns" ip addr add 10.0.9.1/32 dev lo
ip netns exec "$ns" "$bin" "$seeds"
ls "$seeds"
