#!/usr/bin/env bash
# Regenerates scripts/upstream/{k8s,etcd}/go.mod and go.sum, the pinned module graphs that
# upstream.sh builds from. Run after changing versions.sh; needs go and the module proxy.
#
# k8s.io/kubernetes requires its staging modules (k8s.io/api, ...) at v0.0.0 and replaces them
# with ./staging/src/...; a dependency's replaces are ignored, so this module replaces each
# required one with its published version. The list is read from upstream's own go.mod.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/k8s" && cd "$tmp/k8s"
go mod init kube-proxy-native/upstream/k8s 2>/dev/null
upmod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')
gover=$(sed -n 's/^go //p' "$upmod"); go mod edit -go="$gover"
for m in $(awk '/^require \(/{r=1;next} r&&/^\)/{r=0} r&&$2=="v0.0.0"{print $1}' "$upmod"); do
  grep -q "^	$m => ./staging/" "$upmod" && go mod edit -replace="$m=$m@$K8S_STAGING_VERSION"
done
go get -tool "k8s.io/kubernetes/cmd/kube-apiserver@$K8S_VERSION" \
  "k8s.io/kubernetes/cmd/kubectl@$K8S_VERSION" "k8s.io/kubernetes/cmd/kube-proxy@$K8S_VERSION"
go mod tidy
# Every third-party module must be selected at the version upstream's go.mod pins.
awk '/^require \(/{r=1;next} r&&/^\)/{r=0} r&&NF>=2&&$2!="v0.0.0"{print $1, $2}' "$upmod" | sort > up.txt
go list -m -f '{{.Path}} {{.Version}}' all | sort > ours.txt
if join up.txt ours.txt | awk '$2!=$3{print; bad=1} END{exit !bad}'; then
  echo "pin.sh: the module graph moved away from k8s.io/kubernetes@$K8S_VERSION's go.mod (above)" >&2; exit 1
fi

mkdir "$tmp/etcd" && cd "$tmp/etcd"
go mod init kube-proxy-native/upstream/etcd 2>/dev/null
go mod edit -go="$gover"
# etcd's server module has a main package at its root; its go.mod replaces its sibling
# modules with ../, so `go install ...@version` refuses it: it is built from this module.
go get -tool "go.etcd.io/etcd/server/v3@$ETCD_VERSION"
go mod tidy

for d in k8s etcd; do mkdir -p "$here/$d" && cp "$tmp/$d/go.mod" "$tmp/$d/go.sum" "$here/$d/"; done
echo "pin.sh: wrote $here/k8s and $here/etcd (go $gover)"
