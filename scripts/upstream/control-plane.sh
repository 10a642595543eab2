#!/usr/bin/env bash
# bash scripts/upstream/control-plane.sh start   (root)   -> prints `export KPN_UPSTREAM_...=...` lines
# bash scripts/upstream/control-plane.sh stop DIR          (DIR is $KPN_UPSTREAM_DIR)
# bash scripts/upstream/control-plane.sh restart-apiserver DIR   (SIGTERM, same flags, waits for /readyz)
# bash scripts/upstream/control-plane.sh compact DIR       (etcd compacted at its current revision, printed)
#   KPN_UPSTREAM_APISERVER_FLAGS="--flag=value ..." at `start`: more kube-apiserver flags, kept for
#   restart-apiserver (a test's private control plane; the tier's shared one is started without).
#   restart-apiserver and compact are for a control plane a test file started for itself
#   (privateControlPlane() in test/upstream/control-plane.ts), never the tier's shared one.
#
# The control plane the upstream tier (test/upstream/) shares: etcd and kube-apiserver of
# `npm run upstream -- build`, in a network namespace of their own, started once for the tier.
# scripts/test.sh evals the output of `start` before the tier's files and calls `stop` after them;
# a tier file run alone starts its own through this script (test/upstream/control-plane.ts).
#
# What it sets up (docs/testing-upstream.md, "The tier's control plane"):
# - netns kpn-cp-XXXX, lo up, a veth pair inside it with 10.99.0.1/24 (the advertise address);
#   tests join their own "node" namespaces to it with a veth of their own.
# - A CA of its own (openssl) that signs the serving certificate (SANs 10.99.0.1, 127.0.0.1,
#   localhost, the kubernetes Service names) and is also --client-ca-file, so tests can make client
#   certificates with it.
# - A token file: admin (system:masters) and system:kube-proxy (no groups; upstream's bootstrap RBAC
#   binds that user to system:node-proxier).
# - --allow-privileged=true, as kubeadm's control plane runs (its default, false, refuses any privileged
#   container: deploy/'s init container, and upstream's own kube-proxy DaemonSet).
# - RBAC (--authorization-mode=Node,RBAC) and an audit log of every request's metadata, so a test can
#   check what a client asked for and what it was answered.
#
# Exit codes: 0 started (or stopped); 1 failed (the last lines of the failing log on stderr, nothing
# left behind); 2 usage; 77 the binaries cannot be built here (the build's `upstream: SKIP:` line).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ADDR=10.99.0.1
PORT=6443

log() { echo "control-plane: $*" >&2; }

stop_pid() { # SIGTERM, then SIGKILL after 10 s
  local pid=$1
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

# kube-apiserver first: with etcd already gone it does not exit within 30 s of SIGTERM.
stop() {
  local dir=$1
  [ -f "$dir/netns" ] || { log "$dir is not a control plane's directory"; return 1; }
  [ -f "$dir/apiserver.pid" ] && stop_pid "$(cat "$dir/apiserver.pid")"
  [ -f "$dir/etcd.pid" ] && stop_pid "$(cat "$dir/etcd.pid")"
  ip netns del "$(cat "$dir/netns")" 2>/dev/null || true
  rm -rf "$dir"
}

certs() {
  local d=$1
  # The tests' CA: signs the serving certificate, and client certificates (--client-ca-file).
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/ca.key" -out "$d/ca.crt" -days 7 \
    -subj "/CN=kpn-upstream-tier-ca" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout "$d/apiserver.key" -out "$d/apiserver.csr" \
    -subj "/CN=kube-apiserver" 2>/dev/null
  printf 'subjectAltName=IP:%s,IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n' \
    "$ADDR" >"$d/apiserver.ext"
  openssl x509 -req -in "$d/apiserver.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
    -out "$d/apiserver.crt" -days 7 -extfile "$d/apiserver.ext" 2>/dev/null
  openssl genrsa -out "$d/sa.key" 2048 2>/dev/null
}

# kube-apiserver with the flags of `start`, in the background (its log appended to, its pid written).
start_apiserver() {
  local dir=$1 ns
  ns=$(cat "$dir/netns")
  ip netns exec "$ns" "$(cat "$dir/apiserver.bin")" --etcd-servers=http://127.0.0.1:2379 --secure-port=$PORT \
    --advertise-address="$ADDR" --tls-cert-file="$dir/apiserver.crt" --tls-private-key-file="$dir/apiserver.key" \
    --client-ca-file="$dir/ca.crt" --service-cluster-ip-range=10.96.0.0/16 \
    --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$dir/sa.key" \
    --service-account-signing-key-file="$dir/sa.key" --token-auth-file="$dir/tokens.csv" \
    --authorization-mode=Node,RBAC --allow-privileged=true --audit-policy-file="$dir/audit-policy.yaml" \
    --audit-log-path="$dir/audit.log" --audit-log-maxsize=0 $(cat "$dir/apiserver.flags") </dev/null >>"$dir/apiserver.log" 2>&1 &
  echo $! >"$dir/apiserver.pid"
}

# Waits (60 s at most) for /readyz; fails at once when kube-apiserver or etcd has exited.
wait_ready() {
  local dir=$1 ns
  ns=$(cat "$dir/netns")
  for _ in $(seq 1 600); do
    ip netns exec "$ns" "$(cat "$dir/kubectl.bin")" --kubeconfig "$dir/admin.kubeconfig" get --raw /readyz >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$dir/apiserver.pid")" 2>/dev/null || return 1
    kill -0 "$(cat "$dir/etcd.pid")" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# For tests that restart kube-apiserver (on a control plane of their own, never the tier's shared one):
# SIGTERM (its graceful shutdown), then the same flags again; returns once it is ready.
restart_apiserver() {
  local dir=$1
  [ -f "$dir/apiserver.bin" ] || { log "$dir is not a control plane's directory"; return 1; }
  stop_pid "$(cat "$dir/apiserver.pid")"
  start_apiserver "$dir"
  wait_ready "$dir" || { tail -n 20 "$dir/apiserver.log" >&2; log "kube-apiserver did not become ready again"; return 1; }
}

# Compacts etcd at its current revision through its HTTP gateway (inside the namespace); prints it.
# As kube-apiserver's own compactor does it (k8s.io/apiserver/pkg/storage/etcd3/compact.go: Compact),
# the revision is first written to the key compact_rev_key: every kube-apiserver watches that key and
# so learns of the compaction; its watch caches then drop the list snapshots older than it (within
# 15 s: cacher/compactor.go), and a continue token from before it expires. A compaction etcd alone
# knows of leaves those snapshots serving old tokens.
compact() {
  local dir=$1 ns rev key val
  ns=$(cat "$dir/netns")
  # A range over an empty key answers nothing but its header, whose revision is the current one.
  rev=$(ip netns exec "$ns" curl -sf -X POST http://127.0.0.1:2379/v3/kv/range -d '{"key":"AA=="}' |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).header.revision))')
  key=$(printf compact_rev_key | base64) val=$(printf '%s' "$rev" | base64)
  ip netns exec "$ns" curl -sf -X POST http://127.0.0.1:2379/v3/kv/put -d "{\"key\": \"$key\", \"value\": \"$val\"}" >/dev/null
  ip netns exec "$ns" curl -sf -X POST http://127.0.0.1:2379/v3/kv/compaction -d "{\"revision\": $rev, \"physical\": true}" >/dev/null
  echo "$rev"
}

start() {
  local bins etcd apiserver kubectl rc=0
  bins=$(bash "$here/upstream.sh" build 2>/dev/null | tail -n 1) || rc=$?
  [ "$rc" = 77 ] && { echo "$bins" >&2; exit 77; }
  case "$bins" in "{"*) ;; *) echo "$bins" >&2; log "npm run upstream -- build failed (exit $rc)"; exit 1 ;; esac
  get() { node -e 'process.stdout.write(JSON.parse(process.argv[1])[process.argv[2]])' "$bins" "$1"; }
  etcd=$(get etcd) apiserver=$(get kubeApiserver) kubectl=$(get kubectl)

  local dir ns t0
  t0=$(date +%s.%N)
  dir=$(mktemp -d /tmp/kpn-upstream-cp.XXXXXX)
  ns=kpn-cp-$(basename "$dir" | cut -d. -f2 | tr 'A-Z' 'a-z')
  echo "$ns" >"$dir/netns"
  trap 'stop "$dir"' ERR
  trap 'stop "$dir"; exit 1' INT TERM
  ip netns add "$ns"
  local in_ns="ip netns exec $ns"
  $in_ns ip link set lo up
  # A non-loopback address for --advertise-address (a loopback one makes kube-apiserver exit); a
  # veth pair with both ends inside (this kernel has no dummy links).
  $in_ns ip link add kpn0 type veth peer name kpn1
  $in_ns ip addr add "$ADDR/24" dev kpn0
  $in_ns ip link set kpn1 up
  $in_ns ip link set kpn0 up

  certs "$dir"
  cat >"$dir/tokens.csv" <<EOF
admin-token-$$,admin,admin-uid,"system:masters"
kube-proxy-token-$$,system:kube-proxy,kube-proxy-uid,
EOF
  # Metadata of every request except the RequestReceived stage: who asked for what, and the answer.
  cat >"$dir/audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
EOF

  # As upstream's hack/lib/etcd.sh starts it, without fsync (a throwaway data dir). Started in the
  # background with their own output files and no stdin, so `start` returns while they run.
  $in_ns "$etcd" --data-dir "$dir/etcd" --listen-client-urls http://127.0.0.1:2379 \
    --advertise-client-urls http://127.0.0.1:2379 --listen-peer-urls http://localhost:0 \
    --unsafe-no-fsync --log-level warn </dev/null >"$dir/etcd.log" 2>&1 &
  echo $! >"$dir/etcd.pid" # ip netns exec execs the program: this is its pid
  echo "$apiserver" >"$dir/apiserver.bin"
  printf '%s\n' "${KPN_UPSTREAM_APISERVER_FLAGS:-}" >"$dir/apiserver.flags"
  echo "$kubectl" >"$dir/kubectl.bin"
  start_apiserver "$dir"

  cat >"$dir/admin.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: tier, cluster: {server: "https://$ADDR:$PORT", certificate-authority: "$dir/ca.crt"}}]
users: [{name: admin, user: {token: "admin-token-$$"}}]
contexts: [{name: tier, context: {cluster: tier, user: admin}}]
current-context: tier
EOF
  if ! wait_ready "$dir"; then
    tail -n 20 "$dir/etcd.log" "$dir/apiserver.log" >&2
    log "kube-apiserver did not become ready"
    stop "$dir"; exit 1
  fi
  trap - ERR INT TERM
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "control-plane: ready in %.1f s (netns %s)\n", b-a, ARGV[1]}' "$ns" >&2
  cat <<EOF
export KPN_UPSTREAM_DIR=$dir
export KPN_UPSTREAM_NETNS=$ns
export KPN_UPSTREAM_SERVER=https://$ADDR:$PORT
export KPN_UPSTREAM_CA=$dir/ca.crt
export KPN_UPSTREAM_CA_KEY=$dir/ca.key
export KPN_UPSTREAM_ADMIN_TOKEN=admin-token-$$
export KPN_UPSTREAM_PROXY_TOKEN=kube-proxy-token-$$
export KPN_UPSTREAM_AUDIT_LOG=$dir/audit.log
export KPN_UPSTREAM_KUBECTL=$kubectl
export KPN_UPSTREAM_KUBE_PROXY=$(get kubeProxy)
EOF
}

case "${1:-}" in
  start) start ;;
  stop | restart-apiserver | compact)
    [ -n "${2:-}" ] || { echo "usage: $0 $1 DIR" >&2; exit 2; }
    case $1 in stop) stop "$2" ;; restart-apiserver) restart_apiserver "$2" ;; compact) compact "$2" ;; esac ;;
  *) echo "usage: $0 start | stop DIR | restart-apiserver DIR | compact DIR" >&2; exit 2 ;;
esac
