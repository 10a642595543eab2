#!/usr/bin/env bash
# bash scripts/upstream/smoke.sh  (as root)
#
# Checks that the binaries of `npm run upstream -- build` work together: etcd and kube-apiserver
# (TLS with its self-signed certificate, a token file, RBAC) in a network namespace of their own,
# kubectl against it as an admin and as system:kube-proxy, and kube-proxy --version.
# Prints how long kube-apiserver took to become ready; removes everything it made.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bins=$(bash "$here/upstream.sh" build | tail -n 1)
case "$bins" in "{"*) ;; *) echo "$bins"; exit 1 ;; esac
get() { node -e 'process.stdout.write(JSON.parse(process.argv[1])[process.argv[2]])' "$bins" "$1"; }
etcd=$(get etcd) apiserver=$(get kubeApiserver) kubectl=$(get kubectl) kubeproxy=$(get kubeProxy)

ns=kpn-upstream-smoke-$$ addr=10.99.0.1
dir=$(mktemp -d /tmp/kpn-upstream-smoke.XXXXXX)
pids=()
stop() { # SIGTERM, then SIGKILL after 10 s
  kill "$1" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true
}
cleanup() { # newest first: kube-apiserver hangs on its way out when etcd is already gone
  local t0=$SECONDS
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop "${pids[i]}"; done
  [ ${#pids[@]} = 0 ] || echo "smoke: stopped in $((SECONDS - t0)) s"
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
in_ns() { ip netns exec "$ns" "$@"; }

ip netns add "$ns"
in_ns ip link set lo up
# A non-loopback address for --advertise-address (a loopback one is refused for default/kubernetes);
# a veth pair with both ends in the namespace (this kernel has no dummy links).
in_ns ip link add kpn0 type veth peer name kpn1
in_ns ip addr add "$addr/24" dev kpn0
in_ns ip link set kpn1 up
in_ns ip link set kpn0 up

# As upstream's hack/lib/etcd.sh starts it, without fsync (a throwaway data dir).
ip netns exec "$ns" "$etcd" --data-dir "$dir/etcd" --listen-client-urls http://127.0.0.1:2379 \
  --advertise-client-urls http://127.0.0.1:2379 --listen-peer-urls http://localhost:0 \
  --unsafe-no-fsync --log-level warn >"$dir/etcd.log" 2>&1 &
pids+=($!) # ip netns exec execs the program: this is its pid

openssl genrsa -out "$dir/sa.key" 2048 2>/dev/null
cat >"$dir/tokens.csv" <<EOF
admin-token,admin,admin-uid,"system:masters"
kube-proxy-token,system:kube-proxy,kube-proxy-uid,
EOF
t0=$(date +%s.%N)
ip netns exec "$ns" "$apiserver" --etcd-servers=http://127.0.0.1:2379 --secure-port=6443 \
  --advertise-address="$addr" --cert-dir="$dir/certs" --service-cluster-ip-range=10.96.0.0/16 \
  --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$dir/sa.key" \
  --service-account-signing-key-file="$dir/sa.key" --token-auth-file="$dir/tokens.csv" \
  --authorization-mode=Node,RBAC >"$dir/apiserver.log" 2>&1 &
pids+=($!) # ip netns exec execs the program: this is its pid

# The self-signed certificate file holds the serving certificate and the CA that signed it.
kc() { in_ns "$kubectl" --server "https://$addr:6443" --certificate-authority "$dir/certs/apiserver.crt" "$@"; }
for _ in $(seq 1 600); do
  kc --token admin-token get --raw /readyz >/dev/null 2>&1 && break
  kill -0 "${pids[1]}" 2>/dev/null || { tail -n 20 "$dir/apiserver.log"; echo "smoke: kube-apiserver exited"; exit 1; }
  sleep 0.1
done
awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "smoke: kube-apiserver ready after %.1f s\n", b-a}'

kc --token admin-token get ns
kc --token admin-token get --raw /version | node -e 'const v=JSON.parse(require("fs").readFileSync(0));console.log("smoke: /version", v.gitVersion, v.goVersion)'
kc --token admin-token get endpointslices -n default -l kubernetes.io/service-name=kubernetes \
  -o jsonpath='smoke: default/kubernetes endpoints {.items[0].endpoints[*].addresses}{"\n"}'
# The bootstrap RBAC binds system:kube-proxy to system:node-proxier.
kc --token kube-proxy-token get endpointslices -A >/dev/null && echo "smoke: system:kube-proxy may list endpointslices"
if kc --token kube-proxy-token get secrets -A >/dev/null 2>&1; then echo "smoke: system:kube-proxy may list secrets?!"; exit 1; fi
echo "smoke: system:kube-proxy may not list secrets (403)"
"$kubeproxy" --version
echo "smoke: ok"
