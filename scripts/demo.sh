#!/usr/bin/env bash
# The local demo: a small cluster in network namespaces, the proxy programming it, real requests.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then echo "demo: run as root (it creates network namespaces)" >&2; exit 1; fi
bash scripts/setup.sh
exec node dist/scripts/demo.js "$@"
