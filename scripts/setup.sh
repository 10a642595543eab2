#!/usr/bin/env bash
# Idempotent set-up: system packages, npm dependencies, native addon and TypeScript build.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v nft >/dev/null || need+=(nftables)
command -v conntrack >/dev/null || need+=(conntrack)
command -v ip >/dev/null || need+=(iproute2)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v python3 >/dev/null || need+=(python3)
# the tests of --cleanup build upstream kube-proxy's iptables-nft rules and ipsets with the real tools
command -v iptables-nft >/dev/null || need+=(iptables)
command -v ipset >/dev/null || need+=(ipset)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
# The monitoring tests (test/prometheus/) run the shipped rules and dashboard queries in Debian's
# Prometheus; each test starts its own on a free loopback port. Without recommends (no node
# exporter), and with the package's own service stopped where systemd started it: nothing here
# needs a Prometheus listening on :9090.
if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
  echo "setup: installing prometheus" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
  if [ -d /run/systemd/system ]; then systemctl disable --now prometheus >/dev/null 2>&1 || true; fi
fi
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
if [ ! -f build/Release/kube_proxy_native.node ] || [ -n "$(find native binding.gyp -newer build/Release/kube_proxy_native.node 2>/dev/null | head -1)" ]; then
  npm run -s build:native
fi
npm run -s build:ts
