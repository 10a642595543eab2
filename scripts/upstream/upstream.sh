#!/usr/bin/env bash
# npm run upstream -- build
#
# Builds (or reuses from a cache outside the clone) upstream's kube-apiserver, kubectl and
# kube-proxy of K8S_VERSION and etcd ETCD_VERSION (scripts/upstream/versions.sh) with the
# ordinary `go` client, from the module graphs pinned in scripts/upstream/{k8s,etcd}/go.{mod,sum}.
# The last line of output is one JSON object:
#   {"version":"v1.37.2","kubeApiserver":PATH,"kubectl":PATH,"kubeProxy":PATH,"etcd":PATH}
#
# Exit codes: 0 built or reused; 1 a build step failed (the step and go's error are printed);
# 2 usage; 77 the upstream tier cannot run on this machine (no go, or one older than the
# modules need): the last line says so and starts with "upstream: SKIP:".
#
# Environment: UPSTREAM_CACHE_DIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/kube-proxy-native/upstream),
# UPSTREAM_GO_P (go build -p, default 2: one binary at a time, two compile jobs, ~2-3 GB peak).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
SKIP=77

case "${1:-}" in
  build) ;;
  *) echo "usage: npm run upstream -- build" >&2; exit 2 ;;
esac

log() { echo "upstream: $*" >&2; }
skip() { echo "upstream: SKIP: $* (the upstream test tier cannot run here)"; exit $SKIP; }

command -v go >/dev/null 2>&1 || skip "no 'go' on PATH; building $K8S_VERSION needs Go and the Go module proxy"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false"
gover=$(go env GOVERSION)
need=$(sed -n 's/^go //p' "$here/k8s/go.mod")
[ "$(printf '%s\n' "go$need" "$gover" | sort -V | head -1)" = "go$need" ] ||
  skip "$gover is older than go$need, which k8s $K8S_VERSION needs"

# Upstream's release flags (hack/lib/golang.sh, hack/lib/version.sh): static, -trimpath, -s -w,
# tags selinux,notest,grpcnotrace, and the version variables in both packages kubectl/servers read.
# buildDate is the release tag's time (from the module proxy), so the build is reproducible.
tags=selinux,notest,grpcnotrace
x() { echo "-X 'k8s.io/component-base/version.$1=$2' -X 'k8s.io/client-go/pkg/version.$1=$2'"; }
minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
key="k8s-$K8S_VERSION+etcd-$ETCD_VERSION+$gover"
cache_root=${UPSTREAM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-proxy-native/upstream}
# What the binaries are built from; a cache entry with another stamp is rebuilt.
stamp=$( { cat "$here/versions.sh" "$here"/k8s/go.mod "$here"/k8s/go.sum "$here"/etcd/go.mod \
  "$here"/etcd/go.sum; echo "$tags"; sed -n '/^# BUILD-RECIPE/,/^# END-RECIPE/p' "$0"; } | sha256sum | cut -c1-16)

json() {
  printf '{"version":"%s","kubeApiserver":"%s","kubectl":"%s","kubeProxy":"%s","etcd":"%s"}\n' \
    "$K8S_VERSION" "$1/kube-apiserver" "$1/kubectl" "$1/kube-proxy" "$1/etcd"
}

# Each binary must say the version it was built as.
check_versions() {
  local d=$1 out
  for b in kube-apiserver kube-proxy; do
    out=$("$d/$b" --version 2>&1) || return 1
    [ "$out" = "Kubernetes $K8S_VERSION" ] || { log "$b --version says '$out'"; return 1; }
  done
  out=$("$d/kubectl" version --client 2>&1) || return 1
  case "$out" in "Client Version: $K8S_VERSION"*) ;; *) log "kubectl version says '$out'"; return 1 ;; esac
  out=$("$d/etcd" --version 2>&1) || return 1
  case "$out" in "etcd Version: ${ETCD_VERSION#v}"*) ;; *) log "etcd --version says '$out'"; return 1 ;; esac
}

mkdir -p "$cache_root" && cache_root=$(cd "$cache_root" && pwd) && dir="$cache_root/$key" # absolute paths in the JSON
exec 9>"$cache_root/.lock"
command -v flock >/dev/null && flock 9 # one build at a time on this machine; a second caller waits, then reuses

if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$stamp" ] && check_versions "$dir"; then
  log "reusing $dir"
  json "$dir"; exit 0
fi

# BUILD-RECIPE (changing these lines changes the stamp)
tmp=$(mktemp -d "$cache_root/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -r "$here/k8s" "$here/etcd" "$tmp/"
step() { # step NAME MODULE-DIR go ARGS...: runs go, prints its error and the step on failure
  local name=$1 mod=$2 t0=$SECONDS; shift 2
  log "$name ..."
  if ! (cd "$tmp/$mod" && "$@") >"$tmp/step.log" 2>&1; then
    sed 's/^/  | /' "$tmp/step.log" | tail -n 40 >&2
    echo "upstream: FAILED at step '$name' in scripts/upstream/$mod: $*"
    exit 1
  fi
  log "$name done in $((SECONDS - t0)) s"
}
k8s=k8s.io/kubernetes/cmd
step "download the modules of $K8S_VERSION" k8s go list -deps -tags "$tags" $k8s/kube-apiserver $k8s/kubectl $k8s/kube-proxy
step "download the modules of etcd $ETCD_VERSION" etcd go list -deps go.etcd.io/etcd/server/v3
date=$(cd "$tmp/k8s" && go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' k8s.io/kubernetes)
ldflags="all=$(x gitVersion "$K8S_VERSION") $(x gitMajor 1) $(x gitMinor "$minor") $(x gitTreeState clean) $(x buildDate "$date") -s -w"
mkdir "$tmp/bin"
for b in kube-apiserver kubectl kube-proxy; do
  step "build $b" k8s go build -p "${UPSTREAM_GO_P:-2}" -trimpath -tags "$tags" -ldflags "$ldflags" -o "$tmp/bin/$b" "$k8s/$b"
done
step "build etcd" etcd go build -p "${UPSTREAM_GO_P:-2}" -trimpath -ldflags "-s -w" -o "$tmp/bin/etcd" go.etcd.io/etcd/server/v3
# END-RECIPE
check_versions "$tmp/bin" || { echo "upstream: FAILED: a built binary does not report its version (above)"; exit 1; }
echo "$stamp" >"$tmp/bin/stamp"
rm -rf "$dir" && mv "$tmp/bin" "$dir"
log "built into $dir ($(du -sh "$dir" | cut -f1))"
json "$dir"
