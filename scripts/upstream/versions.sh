# The upstream versions the test tier builds (sourced by upstream.sh and pin.sh).
# Changing one: edit it here, run `bash scripts/upstream/pin.sh`, commit the new go.mod/go.sum.
K8S_VERSION=v1.37.2
# The minor staging modules are published at v0.<minor>.<patch> with the same tag.
K8S_STAGING_VERSION=v0.37.2
# etcd 3.7.0 is what k8s v1.37.2 names everywhere: build/dependencies.yaml, hack/lib/etcd.sh
# (ETCD_VERSION), kubeadm's DefaultEtcdVersion "3.7.0-0", and the etcd client library in its go.mod.
ETCD_VERSION=v3.7.0
