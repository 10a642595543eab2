#!/bin/bash
# Build (once) the guest assets that run-ipvs-guest.sh needs (the IPVS suite of `npm test`: docs/testing-ipvs.md), under $IPVS_GUEST_DIR (default /tmp/ipvs-guest):
#   - installs the host tools from Debian's packages
#   - downloads Debian's linux-image-amd64 kernel .deb (extracted with dpkg -x, never installed)
#   - builds a tiny initramfs (static busybox + virtio/9p/overlay modules + qemu-stage1.sh as /init)
# Safe to run again: it skips what is already there.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
BASE=${IPVS_GUEST_DIR:-/tmp/ipvs-guest}
G=$BASE/guest
mkdir -p "$G"
cd "$G"
need=()
for p in kmod qemu-system-x86 busybox-static cpio ipvsadm nftables conntrack iproute2; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
fi
install -p -m 755 "$HERE/qemu-stage1.sh" "$HERE/stage2.sh" "$G/"
if ! ls kroot/boot/vmlinuz-* >/dev/null 2>&1; then
  mkdir -p debs && cd debs
  # The package lists may be missing or stale on a machine where every tool was already installed.
  apt-get download linux-image-amd64 >/dev/null 2>&1 || { apt-get update -qq; apt-get download linux-image-amd64 >/dev/null; }
  img=$(dpkg-deb -f linux-image-amd64_*.deb Depends | sed -n 's/^\(linux-image-[^ ]*\).*/\1/p')
  apt-get download "$img" >/dev/null 2>&1
  cd "$G"; rm -rf kroot
  dpkg -x debs/"$img"_*.deb kroot
  rm -rf debs
fi
KV=$(basename kroot/boot/vmlinuz-* | sed 's/^vmlinuz-//')
[ -f kroot/lib/modules/$KV/modules.dep ] || depmod -b kroot "$KV"   # the .deb ships no modules.dep
if [ ! -f initrd.img ] || [ qemu-stage1.sh -nt initrd.img ]; then
  rm -rf initrd && mkdir -p initrd/{bin,dev,proc,sys,lower,newroot,ovl,lib/modules}
  cp /usr/bin/busybox initrd/bin/busybox
  : > initrd/lib/modules/load-order
  for top in virtio_pci 9pnet_virtio 9p overlay; do
    for ko in $(modprobe -d kroot -S "$KV" --show-depends "$top" | awk '$1=="insmod"{print $2}'); do
      b=$(basename "$ko" .ko)
      grep -qx "$b" initrd/lib/modules/load-order || { cp "$ko" initrd/lib/modules/; echo "$b" >> initrd/lib/modules/load-order; }
    done
  done
  install -m 755 qemu-stage1.sh initrd/init
  (cd initrd && find . | cpio -o -H newc --quiet | gzip -1 > ../initrd.img)
fi
echo "ipvs guest ready: kernel $KV under $G"
