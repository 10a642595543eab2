#!/usr/bin/env bash
# The local demo: a small cluster in network namespaces, the proxy programming it, real requests.
# `npm run demo -- --mode ipvs` runs the IPVS mode; on a kernel without IPVS (this project's machines)
# it runs inside a guest kernel that has it (scripts/ipvs-guest/, docs/testing-ipvs.md).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then echo "demo: run as root (it creates network namespaces)" >&2; exit 1; fi
bash scripts/setup.sh
case " $* " in
  *" --mode ipvs "*|*" --mode=ipvs "*)
    if [ ! -e /proc/net/ip_vs ] && ! modprobe -q ip_vs 2>/dev/null; then
      echo "demo: this kernel has no IPVS; running the demo in a guest kernel that has it (about a minute)" >&2
      bash scripts/ipvs-guest/build-guest.sh >&2
      exec bash scripts/ipvs-guest/run-ipvs-guest.sh -c 2 -m 2048 -t 600 "node dist/scripts/demo.js $*"
    fi ;;
esac
exec node dist/scripts/demo.js "$@"
