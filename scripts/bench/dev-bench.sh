#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark on a real disk, on the kernel this machine has booted (no
# QEMU): 'scripts/run.sh --dev DEV', run once on the base kernel and once on
# the patched one, each with its --label.  Results go to OUTDIR/results.txt,
# with those of the other label; once both kernels are there, the report
# (table, CSV, JSON, plots) compares them.  All rounds of one label come
# from one boot, so the spread holds only the drift within a boot: a
# difference between the two boots themselves (where memory landed, the
# disk's state) is in every ratio and in no interval.  The report's
# verdicts are therefore weaker than those of the interleaved QEMU runs;
# reboot and run both labels again to see whether a difference holds.
# The settings (rw, runtime, schedulers, jobs) and the disk's identity are
# stored with the results; a label run with others is refused.
#
# Read-only unless --write-destroys-data is given.  DEV is refused when it
# is not a whole disk, when it or one of its partitions is mounted, swap,
# held (device mapper, md, bcache...), backs a loop device, or is open by
# anyone else (an exclusive open of the disk and of each partition fails:
# a file system in another mount namespace, a btrfs/ZFS member, a VM's
# raw disk); its scheduler is put back as it was at the end.
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
# backs a loop device
for l in /sys/block/loop*/loop/backing_file; do
	[ -r "$l" ] || continue
	for x in "/dev/$name" "${parts[@]/#//dev/}"; do
		[ "$(cat "$l")" = "$x" ] &&
			die "$dev: refusing a disk in use: $x backs $(basename "${l%/loop/backing_file}")"
	done
done
# open by anyone else: the kernel refuses an exclusive open of a block
# device that is mounted or claimed, whatever the name or namespace
if command -v python3 > /dev/null; then
	for x in "/dev/$name" "${parts[@]/#//dev/}"; do
		[ -b "$x" ] || continue
		python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL))' \
			"$x" 2>/dev/null ||
			die "$dev: refusing a disk in use: $x cannot be opened exclusively (mounted or claimed)"
	done
else
	warn "no python3: the exclusive-open check of $dev is skipped"
fi
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
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds '$rounds': not a positive number"
[[ $RUNTIME =~ ^[1-9][0-9]*$ ]] || die "--runtime '$RUNTIME': not a positive number"
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
# What the figures depend on: both labels must share it.
ident=$(cat "$sys/device/wwid" "$sys/wwid" "$sys/device/serial" 2>/dev/null | head -n 1 | tr -s ' ')
settings="rw=$RW runtime=$RUNTIME scheds=${scheds// /,} jobs=${jobs// /,} disk=${ident:-$name}"
if [ -f "$res" ]; then
	old=$(sed -n 's/^SETTINGS //p' "$res" | head -n 1)
	[ -z "$old" ] || [ "$old" = "$settings" ] ||
		die "$res holds results taken with other settings ($old), not ($settings): use another output directory or remove it"
	# One run per label: a second run of a label replaces the first.
	grep -v -e " kernel=$label " -e '^SETTINGS ' "$res" > "$res.new"
	mv "$res.new" "$res"
fi
{ echo "SETTINGS $settings"; cat "$res" 2>/dev/null; } > "$res.new" && mv "$res.new" "$res"
orig=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "/sys/block/$name/queue/scheduler")
trap 'echo "$orig" > "/sys/block/$name/queue/scheduler" 2>/dev/null' EXIT
trap 'exit 130' INT TERM HUP
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
			read -r i0 m0 < <(bench_devstat "$name")
			iops=$(bench_fio "$dev" "$j" "${ro[@]}")
			read -r i1 m1 < <(bench_devstat "$name")
			merges=$((m1 - m0)) ios=$((i1 - i0))
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
