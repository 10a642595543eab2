#!/usr/bin/env bash
# Captures real kernel replies as seeds for the parser fuzz targets (capture_seeds.cc): prepares a
# scratch network namespace (an nftables table with chains, rules, sets and maps; DNATed UDP flows
# in both families; a DNATed SCTP entry), runs the capture there and deletes the namespace.
# Writes seeds/{nft_dump,nl_acks,ct_messages}/*.bin. Root only. Usage: capture-seeds.sh [seeds-dir]
set -euo pipefail
cd "$(dirname "$0")"
seeds="$(realpath -m "${1:-seeds}")"
out="${FUZZ_OUT:-/tmp/kpn-fuzz}"
mkdir -p "$out" "$seeds"
cxx="$(command -v clang++-14 || command -v g++)"
"$cxx" -std=c++17 -O1 -Wall -I.. -o "$out/capture_seeds" capture_seeds.cc ../netlink/builder.cc ../netlink/attr.cc \
  ../nft/batch.cc ../nft/data.cc ../nft/table.cc ../nft/chain.cc ../nft/rule.cc ../nft/set.cc ../nft/elements.cc \
  ../nft/expr*.cc ../txn/decoder.cc ../txn/element_list.cc ../txn/expr_decoder.cc ../txn/wire_reader.cc \
  ../conntrack/ct_messages.cc ../conntrack/ct_stats_messages.cc ../netlink/attr_iter.cc

ns="kpnseeds-$$"
ip netns add "$ns"
trap 'ip netns del "$ns"' EXIT
in_ns() { ip netns exec "$ns" "$@"; }
in_ns ip link set lo up
for a in 10.0.9.1 10.96.0.10 10.0.1.1 10.0.1.2; do in_ns ip addr add "$a/32" dev lo; done
for a in fd00:9::1 fd00:96::10 fd00:1::1; do in_ns ip -6 addr add "$a/128" dev lo nodad; done
in_ns nft -f - <<'NFT'
table ip seeds {
  set svc { type ipv4_addr . inet_proto . inet_service; elements = { 10.96.0.10 . udp . 53, 10.96.0.11 . tcp . 80 } }
  map eps { type ipv4_addr : verdict; elements = { 10.0.1.1 : goto ep1, 10.0.1.2 : drop } }
  set ranges { type ipv4_addr; flags interval; elements = { 10.96.0.0/16, 192.168.1.1-192.168.1.9 } }
  map pairs { type inet_service : ipv4_addr . inet_service; flags timeout; elements = { 53 timeout 1h : 10.0.1.1 . 5353 } }
  set aff { type ipv4_addr; flags dynamic, timeout; timeout 3h; }
  chain ep1 { ip saddr 10.0.1.1 meta mark set 0x4000 counter accept; }
  chain pre {
    type nat hook prerouting priority -100; policy accept;
    ip daddr . meta l4proto . th dport @svc counter
    ip daddr vmap @eps
    update @aff { ip saddr } numgen random mod 2 vmap { 0 : jump ep1, 1 : accept }
    ip daddr 10.96.0.12 udp dport 53 dnat to 10.0.1.1:5353
  }
  chain out {
    type filter hook output priority 0; policy accept;
    fib daddr type local ct state new accept
    ip daddr @ranges meta l4proto udp reject with icmp port-unreachable
  }
  chain post { type nat hook postrouting priority 100; ip saddr 10.0.9.1 masquerade; }
}
table ip ctlab { chain out { type nat hook output priority -100; ip daddr 10.96.0.10 udp dport 53 dnat to 10.0.1.1:5353; }; }
table ip6 ctlab { chain out { type nat hook output priority -100; ip6 daddr fd00:96::10 udp dport 53 dnat to [fd00:1::1]:5353; }; }
NFT
in_ns bash -c 'for i in 1 2 3; do echo x > /dev/udp/10.96.0.10/53; done; echo x > /dev/udp/10.0.1.2/99; echo x > /dev/udp/fd00:96::10/53' || true
in_ns conntrack -I -p sctp -s 10.0.9.1 -d 10.96.0.30 --sport 1000 --dport 9000 --reply-src 10.96.0.30 --reply-dst 10.0.9.1 \
  --reply-port-src 9000 --reply-port-dst 1000 --state ESTABLISHED --orig-vtag 1 --reply-vtag 2 -t 120 -u ASSURED --dst-nat 10.0.3.3 >/dev/null
in_ns "$out/capture_seeds" "$seeds"
