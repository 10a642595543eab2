#!/usr/bin/env bash
# The local demo: a small cluster in network namespaces, the proxy programming it, real requests.
# `npm run demo -- --mode ipvs` runs the IPVS mode; on a kernel without IPVS (this project's machines)
# it runs inside a guest kernel that has it (scripts/ipvs-guest/, docs/testing-ipvs.md).
# KPN_NODE=/path/to/node npm run demo runs it under another Node.js than the image's.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then echo "demo: run as root (it creates network namespaces)" >&2; exit 1; fi
bash scripts/setup.sh
# The Node.js the demo runs under: $KPN_NODE if set, else the image's (scripts/node-lts.sh: Node 24,
# fetched once from the npm registry), else the system's `node`, said in one line.
if [ -z "${KPN_NODE:-}" ]; then
  rc=0; KPN_NODE=$(bash scripts/node-lts.sh) || rc=$?
  if [ "$rc" != 0 ]; then echo "demo: ${KPN_NODE:-scripts/node-lts.sh failed (exit $rc)}; the demo runs under the system node" >&2; KPN_NODE=node; fi
fi
case " $* " in
  *" --mode ipvs "*|*" --mode=ipvs "*)
    if [ ! -e /proc/net/ip_vs ] && ! modprobe -q ip_vs 2>/dev/null; then
      echo "demo: this kernel has no IPVS; running the demo in a guest kernel that has it (about a minute)" >&2
      bash scripts/ipvs-guest/build-guest.sh >&2
      exec bash scripts/ipvs-guest/run-ipvs-guest.sh -c 2 -m 2048 -t 600 "$KPN_NODE dist/scripts/demo.js $*"
    fi ;;
esac
exec "$KPN_NODE" dist/scripts/demo.js "$@"
