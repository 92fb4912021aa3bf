#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the base and the patched benchmark kernel in turn (base, patched,
# base, patched, ...: interleaved, so that drift hits both) with the
# benchmark initramfs (scripts/bench/guest-bench.sh as /extra/run), collect
# the BENCH and LOCKSTAT lines and print the table (table.awk).
#
# Standalone on purpose: it needs bash, awk, timeout, setsid and QEMU only,
# so that 'scripts/run.sh --pack DIR' can ship it, with the kernels and a
# QEMU, to a bigger machine.
#
# usage: run-guests.sh [-q QEMU] [-a tcg|kvm] [-s SMP] [-m MEM] [-r ROUNDS]
#                      [-t TIMEOUT] [-x APPEND] -o OUTDIR BASE PATCHED INITRAMFS
#   -q QEMU     QEMU binary or wrapper (default qemu-system-x86_64)
#   -a ACCEL    tcg (default) or kvm
#   -x APPEND   extra kernel command line, e.g. "bb.jobs=1,8,32 bb.runtime=20"
# Exit: 0 if every guest finished; 1 otherwise (the table is still printed).

set -u
here=$(cd "$(dirname "$0")" && pwd)
qemu=qemu-system-x86_64 accel=tcg smp=2 mem=4G rounds=2 tmo=1800 xappend= out=
while getopts "q:a:s:m:r:t:x:o:" opt; do
	case $opt in
	q) qemu=$OPTARG ;;
	a) accel=$OPTARG ;;
	s) smp=$OPTARG ;;
	m) mem=$OPTARG ;;
	r) rounds=$OPTARG ;;
	t) tmo=$OPTARG ;;
	x) xappend=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -ne 3 ] || [ -z "$out" ]; then
	echo "usage: $0 [-q QEMU] [-a tcg|kvm] [-s SMP] [-m MEM] [-r ROUNDS] [-t TIMEOUT] [-x APPEND] -o OUTDIR BASE PATCHED INITRAMFS" >&2
	exit 2
fi
declare -A kernel=([base]=$1 [patched]=$2)
initrd=$3
for f in "${kernel[base]}" "${kernel[patched]}" "$initrd"; do
	[ -r "$f" ] || { echo "run-guests: cannot read $f" >&2; exit 1; }
done
case $accel in
kvm) accel_args=(-accel kvm -cpu host)
     [ -w /dev/kvm ] || { echo "run-guests: /dev/kvm is not usable" >&2; exit 1; } ;;
tcg) accel_args=(-accel tcg,thread=multi -cpu max) ;;
*) echo "run-guests: unknown accelerator '$accel'" >&2; exit 2 ;;
esac
mkdir -p "$out" || exit 1
results=$out/results.txt
: > "$results"
rc=0
for r in $(seq "$rounds"); do
	for k in base patched; do
		log=$out/$k-round$r.log
		: > "$log"
		t0=$(date +%s)
		setsid timeout -k 10 "$tmo" "$qemu" "${accel_args[@]}" \
			-smp "$smp" -m "$mem" -kernel "${kernel[$k]}" -initrd "$initrd" \
			-append "console=ttyS0 loglevel=4 panic=-1 null_blk.nr_devices=0 bb.mode=bench bb.kernel=$k $xappend" \
			-display none -vga none -monitor none -nic none -serial "file:$log" -no-reboot \
			</dev/null
		qrc=$?
		echo "run-guests: $k round $r: ${accel} -smp $smp, $(( $(date +%s) - t0 ))s, rc=$qrc" >&2
		if [ $qrc -ne 0 ] || ! grep -q '^BB-DMESG-END' "$log"; then
			echo "run-guests: $k round $r did not finish cleanly (see $log)" >&2
			rc=1
		fi
		tr -d '\r' < "$log" | grep -E '^(BENCH|LOCKSTAT) ' |
			sed "s/\$/ round=$r/" >> "$results"
	done
done
awk -f "$here/table.awk" "$results" | tee "$out/table.md"
echo "(QEMU $accel, -smp $smp, $rounds round(s), interleaved; raw: $results)"
exit $rc
