#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel + initramfs under QEMU TCG (KVM hangs on these hosts), with
# the serial console in LOG.  A guest that does not power off within the
# timeout is killed with its whole process group and reported as a failure.
#
# usage: boot.sh [-s SMP] [-m MEM] [-t TIMEOUT] [-a APPEND] [-q QEMU-ARG]...
#                BZIMAGE INITRAMFS LOG
# Exit: 0 the guest powered off by itself; 124 timeout; other: QEMU failed.

set -u
. "$(dirname "$0")/lib.sh"

smp=2 mem=2G tmo=1800 append= qextra=()
while getopts "s:m:t:a:q:" opt; do
	case $opt in
	s) smp=$OPTARG ;;
	m) mem=$OPTARG ;;
	t) tmo=$OPTARG ;;
	a) append=$OPTARG ;;
	q) qextra+=("$OPTARG") ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || { echo "usage: $0 [opts] BZIMAGE INITRAMFS LOG" >&2; exit 2; }
kernel=$1 initrd=$2 log=$3
need_tools qemu-system-x86_64 timeout setsid
[ -r "$kernel" ] || die "no kernel image $kernel"
[ -r "$initrd" ] || die "no initramfs $initrd"

: > "$log"
# noirqdebug: QEMU's emulated NVMe under TCG once kept its INTx line asserted
# during a controller reset (test_quiesce_02, 2026-11-23, commit
# f28ff85): "irq 11: nobody cared", a stack dump, and the IRQ disabled, while I/O went on through
# MSI-X.  That is the emulated device, not the block layer; a lost interrupt
# that matters still shows as a stall (the watchdog) or an NVMe timeout.
setsid timeout -k 10 "$tmo" qemu-system-x86_64 \
	-accel tcg,thread=multi -cpu max -smp "$smp" -m "$mem" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 loglevel=6 panic=-1 oops=panic null_blk.nr_devices=0 scsi_debug.add_host=0 scsi_debug.dev_size_mb=64 tsc=reliable noirqdebug $append" \
	-display none -monitor none -serial "file:$log" -no-reboot \
	"${qextra[@]}" </dev/null
rc=$?
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	warn "guest did not finish within ${tmo}s: killed"
	echo "BB-GUEST-TIMEOUT after ${tmo}s" >> "$log"
	exit 124
fi
exit $rc
