#!/bin/bash
# Run a shell command inside a throw-away Linux guest whose kernel has IPVS (plus nftables, conntrack).
#
#   run-ipvs-guest.sh [options] 'command string'
#
# The guest sees the host's root filesystem read-only, under a tmpfs overlay (writes inside the
# guest land in RAM and are thrown away); $IPVS_GUEST_DIR (default /tmp/ipvs-guest) and any -w dirs are shared read-write.
# The command runs as root (PID 1's child) in the caller's current directory, with no network
# except loopback (create netns/veth/dummy inside the guest as needed). The guest's stdout/stderr
# come back on this script's stdout/stderr, and its exit status becomes this script's exit status.
#
# Options (or env vars):
#   The guest is Debian's linux-image (6.1) under qemu-system-x86_64 TCG (software emulation; /dev/kvm on
#   these machines cannot run a stock kernel). IPVS + nftables (ip/ip6/inet) + conntrack + node all
#   work. ~7-11 s boot-to-halt.
#   -w DIR        also share host DIR read-write at the same path (repeatable; IPVS_GUEST_RW="d1:d2")
#   -m MB         IPVS_GUEST_MEM (default 1024)
#   -c N          IPVS_GUEST_CPUS (default 1)
#   -t SECONDS    IPVS_GUEST_TIMEOUT (default 900)
#   -v            show the guest's kernel console log on stderr afterwards (IPVS_GUEST_VERBOSE=1)
#   advanced: IPVS_GUEST_QEMU_CPU (default max), IPVS_GUEST_APPEND (extra kernel args),
#             IPVS_GUEST_QEMU_EXTRA (extra qemu args), IPVS_GUEST_LOGLEVEL (console loglevel)
# Assets: $BASE/guest (built by $BASE/build-guest.sh): kroot/ (extracted linux-image .deb), initrd.img,
#   qemu-stage1.sh (initramfs /init), stage2.sh (runs the command, powers off).
# Exit status: the command's, or 124 on timeout, or 125 if the guest did not report a status.
set -u
BASE=${IPVS_GUEST_DIR:-/tmp/ipvs-guest}
G=$BASE/guest
BACKEND=qemu
MEM=${IPVS_GUEST_MEM:-1024}
CPUS=${IPVS_GUEST_CPUS:-1}
TMO=${IPVS_GUEST_TIMEOUT:-900}
VERBOSE=${IPVS_GUEST_VERBOSE:-0}
RW=${IPVS_GUEST_RW:-}
while getopts "w:m:c:t:v" o; do
  case $o in
    w) RW=${RW:+$RW:}$(readlink -f "$OPTARG") ;; m) MEM=$OPTARG ;;
    c) CPUS=$OPTARG ;; t) TMO=$OPTARG ;; v) VERBOSE=1 ;; *) sed -n '2,30p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND-1))
[ $# -ge 1 ] || { sed -n '2,30p' "$0" >&2; exit 2; }
case "$RW" in *" "*) echo "run-ipvs-guest: -w paths must not contain spaces" >&2; exit 2 ;; esac

mkdir -p "$BASE/runs"
RUN=$(mktemp -d "$BASE/runs/run.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
printf '%s\n' "$*" > "$RUN/cmd"
: > "$RUN/out"; : > "$RUN/err"
pwd > "$RUN/cwd"
CONSOLE=$RUN/console.log

case $BACKEND in
qemu)
  KIMG=$(ls "$G"/kroot/boot/vmlinuz-* 2>/dev/null | head -n1)
  [ -n "$KIMG" ] && [ -f "$G/initrd.img" ] || { echo "run-ipvs-guest: missing qemu assets; run build-guest.sh beside this script" >&2; exit 2; }
  SHARES=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
          -virtfs "local,path=$G/kroot/lib/modules,mount_tag=kmods,security_model=none,readonly=on"
          -virtfs "local,path=$BASE,mount_tag=xchg,security_model=none,multidevs=remap")
  i=0; IFS=: read -r -a RWA <<< "$RW"
  for d in "${RWA[@]}"; do SHARES+=(-virtfs "local,path=$d,mount_tag=rw$i,security_model=none,multidevs=remap"); i=$((i+1)); done
  timeout -k 5 "$TMO" qemu-system-x86_64 -accel tcg,thread=multi -cpu "${IPVS_GUEST_QEMU_CPU:-max}" -smp "$CPUS" -m "$MEM" \
    -nodefaults -no-user-config -display none -no-reboot -nic none -monitor none \
    -kernel "$KIMG" -initrd "$G/initrd.img" \
    -append "console=ttyS0 loglevel=${IPVS_GUEST_LOGLEVEL:-4} panic=-1 ${IPVS_GUEST_APPEND:-} RUNDIR=$RUN RWSHARES=$RW XCHG=$BASE" \
    -chardev "file,id=con,path=$CONSOLE" -serial chardev:con \
    ${IPVS_GUEST_QEMU_EXTRA:-} "${SHARES[@]}" </dev/null 2>>"$CONSOLE" &
  VMPID=$!
  ;;
*) echo "run-ipvs-guest: unknown backend $BACKEND" >&2; exit 2 ;;
esac
trap 'kill "$VMPID" 2>/dev/null' INT TERM HUP
# stream the guest command's stdout/stderr (written by the guest into $RUN via the rw share)
tail -n +1 -s 0.2 -f --pid="$VMPID" "$RUN/out" & T1=$!
tail -n +1 -s 0.2 -f --pid="$VMPID" "$RUN/err" >&2 & T2=$!
wait "$VMPID"; VRC=$?
wait "$T1" "$T2"

if [ "$VERBOSE" = 1 ]; then echo "----- guest console ($BACKEND) -----" >&2; cat "$CONSOLE" >&2; fi
if [ "$VRC" = 124 ] || [ "$VRC" = 137 ]; then
  echo "run-ipvs-guest: timed out after ${TMO}s" >&2; tail -n 20 "$CONSOLE" >&2; exit 124
fi
if [ -s "$RUN/rc" ]; then exit "$(cat "$RUN/rc")"; fi
echo "run-ipvs-guest: guest exited ($VRC) without reporting a status; console tail:" >&2
tail -n 30 "$CONSOLE" >&2
exit 125
