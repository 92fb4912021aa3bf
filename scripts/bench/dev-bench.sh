#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark on a real disk, on the kernel this machine has booted (no
# QEMU): 'scripts/run.sh --dev DEV', run once on the base kernel and once on
# the patched one, each with its --label.  Results go to OUTDIR/results.txt,
# with those of the other label; once both kernels are there, the report
# (table, CSV, JSON, plots) compares them.  Rounds of the two kernels come
# from different boots, so the spread also holds the boot-to-boot drift.
#
# Read-only unless --write-destroys-data is given.  DEV is refused when it
# is not a whole disk, when it or one of its partitions is mounted, is
# swap, or has holders (device mapper, md, bcache...); its scheduler is put
# back as it was at the end.
#
# usage: dev-bench.sh --label base|patched [--write-destroys-data]
#                     [--rw RW] [--scheds LIST] [--jobs LIST] [--runtime S]
#                     [--rounds R] [--check-only] -o OUTDIR DEV
#   --check-only  the safety checks only (exit 0: DEV may be used)

set -u
. "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

label= write=0 RW= scheds="none mq-deadline bfq" jobs="1 4 16" RUNTIME=10
rounds=3 out= check_only=0
usage() {
	echo "usage: $0 --label base|patched [--write-destroys-data] [--rw RW] [--scheds LIST] [--jobs LIST] [--runtime S] [--rounds R] [--check-only] -o OUTDIR DEV" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--label) label=${2:?}; shift 2 ;;
	--write-destroys-data) write=1; shift ;;
	--rw) RW=${2:?}; shift 2 ;;
	--scheds) scheds=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	--runtime) RUNTIME=${2:?}; shift 2 ;;
	--rounds) rounds=${2:?}; shift 2 ;;
	--check-only) check_only=1; shift ;;
	-o) out=${2:?}; shift 2 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage
dev=$1

# --- the device: only a whole, unused disk ---------------------------------
[ -e "$dev" ] || die "$dev: no such device"
[ -b "$dev" ] || die "$dev: not a block device"
name=$(basename "$(realpath "$dev")")
sys=/sys/class/block/$name
[ -d "$sys" ] || die "$dev: no $sys"
[ -e "$sys/partition" ] &&
	die "$dev is a partition; name the whole disk (the scheduler is the disk's)"
[ -d "/sys/block/$name/queue" ] || die "$dev: no /sys/block/$name/queue"
# the disk and its partitions, as MAJ:MIN
devs=("$(cat "$sys/dev")")
parts=()
for p in "$sys"/"$name"*; do
	[ -e "$p/partition" ] || continue
	parts+=("${p##*/}")
	devs+=("$(cat "$p/dev")")
done
# mounted: /proc/self/mountinfo field 3 is the MAJ:MIN of the mount's source
for d in "${devs[@]}"; do
	m=$(awk -v d="$d" '$3 == d { print $5 }' /proc/self/mountinfo | head -n 3 | paste -sd' ')
	[ -z "$m" ] || die "$dev: refusing a disk in use: $d is mounted on $m"
done
# swap: /proc/swaps names the device or file; compare device numbers
while read -r sw _; do
	[ -b "$sw" ] || continue
	d=$(printf '%d:%d' "0x$(stat -L -c %t "$sw")" "0x$(stat -L -c %T "$sw")")
	for x in "${devs[@]}"; do
		[ "$d" = "$x" ] && die "$dev: refusing a disk in use: $sw is active swap"
	done
done < <(tail -n +2 /proc/swaps)
# holders: device mapper, md, bcache, on the disk or a partition
for h in "$sys"/holders/*; do
	[ -e "$h" ] && die "$dev: refusing a disk in use: held by ${h##*/}"
done
for p in "${parts[@]}"; do
	for h in "$sys/$p"/holders/*; do
		[ -e "$h" ] && die "$dev: refusing a disk in use: $p is held by ${h##*/}"
	done
done
if [ $write -eq 1 ] && [ "$(cat "$sys/ro")" != 0 ]; then
	die "$dev is read-only; --write-destroys-data cannot write it"
fi
[ $check_only -eq 1 ] && { info "$dev: whole disk, not mounted, not swap, no holders"; exit 0; }

# --- the run -----------------------------------------------------------------
case $label in
base|patched) ;;
*) die "--label: base or patched (which kernel this machine runs), not '$label'" ;;
esac
[ -n "$out" ] || usage
if [ -z "$RW" ]; then
	RW=randread
	[ $write -eq 1 ] && RW=randwrite
fi
ro=(--readonly)
case $RW in
read|randread) ;;
write|randwrite|rw|randrw|readwrite)
	[ $write -eq 1 ] ||
		die "--rw $RW writes to $dev and destroys its data: add --write-destroys-data"
	ro=() ;;
*) die "--rw: read, randread, write, randwrite, rw or randrw, not '$RW'" ;;
esac
need_tools fio
[ "$(id -u)" -eq 0 ] || die "--dev needs root (schedulers, direct I/O on $dev)"
for s in $scheds; do
	[ "$s" = none ] || grep -qw -- "$s" "/sys/block/$name/queue/scheduler" ||
		modprobe -q "$s-iosched" 2>/dev/null ||
		die "$dev: scheduler '$s' is not available ($(cat "/sys/block/$name/queue/scheduler"))"
done
mkdir -p "$out" || die "cannot create $out"
res=$out/results.txt
# One kernel per label: a second run of a label replaces the first.
if [ -f "$res" ]; then
	grep -v " kernel=$label " "$res" > "$res.new"
	mv "$res.new" "$res"
fi
orig=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "/sys/block/$name/queue/scheduler")
trap 'echo "$orig" > "/sys/block/$name/queue/scheduler" 2>/dev/null' EXIT
. "$here/fio-case.sh"
export BB_FIO_OUT=$out/fio.out
total=$((rounds * $(wc -w <<<"$scheds") * $(wc -w <<<"$jobs"))) i=0 t0=$(date +%s)
info "$dev ($label kernel $(uname -r)): $RW, $total cases of ${RUNTIME}s$([ $write -eq 0 ] && echo ', read-only')"
for r in $(seq "$rounds"); do
	for s in $scheds; do
		for j in $jobs; do
			i=$((i + 1))
			echo "$s" > "/sys/block/$name/queue/scheduler" ||
				die "cannot select $s on $dev"
			[ -w /proc/lock_stat ] && echo 0 > /proc/lock_stat
			read -r -a st0 < "/sys/block/$name/stat"
			iops=$(bench_fio "$dev" "$j" "${ro[@]}")
			read -r -a st1 < "/sys/block/$name/stat"
			merges=$(( st1[1] + st1[5] - st0[1] - st0[5] ))
			ios=$(( st1[0] + st1[4] - st0[0] - st0[4] ))
			line="BENCH kernel=$label sched=$s jobs=$j iops=${iops:-NA} merges=$merges"
			echo "$line round=$r" >> "$res"
			bench_lockstat "LOCKSTAT kernel=$label sched=$s jobs=$j ios=$ios" |
				sed "s/\$/ round=$r/" >> "$res"
			left=$(( ($(date +%s) - t0) * (total - i) / i ))
			info "case $i of $total: ${line#BENCH }; about $((left / 60)) min $((left % 60)) s left"
		done
	done
done
if grep -q ' kernel=base ' "$res" && grep -q ' kernel=patched ' "$res"; then
	"$here/report.sh" "$res" "$out" "$name"
else
	info "results in $res; run again on the other kernel for the comparison"
fi
