#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the base and the patched benchmark kernel in turn (base, patched,
# base, patched, ...: interleaved, so that drift hits both) with the
# benchmark initramfs (scripts/bench/guest-bench.sh as /extra/run), collect
# the BENCH, LOCKSTAT and HOLD lines, and write the report (report.sh: table,
# CSV, JSON, plots) into OUTDIR.  While a guest runs, each case it finishes
# is printed with where the run is (case i of N) and the time left.
#
# Standalone on purpose: it needs bash, awk, timeout, setsid and QEMU only
# (gnuplot for the plots), so that 'scripts/run.sh --pack DIR' can ship it,
# with the kernels and a QEMU, to a bigger machine.
#
# usage: run-guests.sh [-q QEMU] [-a tcg|kvm] [-s SMP] [-m MEM] [-r ROUNDS]
#                      [-t TIMEOUT] [-x APPEND] [-n CASES] [-N IMG] [-D KIND:IMG]
#                      [-l] [-L FILE] -o OUTDIR BASE PATCHED INITRAMFS
#   -q QEMU     QEMU binary or wrapper (default qemu-system-x86_64)
#   -a ACCEL    tcg (default) or kvm
#   -x APPEND   extra kernel command line, e.g. "bb.jobs=1,8,32 bb.runtime=20"
#   -n CASES    cases per guest, for the progress lines (default: learnt
#               from the first guest)
#   -N IMG      give each guest an emulated NVMe controller (2 I/O queue
#               pairs) with IMG as its namespace (run.sh --holds)
#   -D KIND:IMG a scratch disk on IMG, product "bbscratch", non-rotational
#               (run.sh --disk):
#               KIND virtio-scsi (one request queue per vCPU) or megasas
#               (LSI MegaRAID SAS 2108, megasas-gen2: the megaraid_sas driver)
#   -l          lock_stat guests (kernels built with configs/lockstat.config):
#               keep only their LOCKSTAT lines in OUTDIR/results.txt and
#               write no report; their IOPS, under lockdep, are not compared
#   -L FILE     add FILE's LOCKSTAT lines (the results.txt of a -l run) to
#               this run's results before the report
# Exit: 0 if every guest finished; 1 otherwise (the report is still written).

set -u
here=$(cd "$(dirname "$0")" && pwd)
qemu=qemu-system-x86_64 accel=tcg smp=2 mem=4G rounds=8 tmo=1800 xappend= out= ncase=
dev_args=() lsonly= lsfile= scsi_kind= scsi_img=
while getopts "q:a:s:m:r:t:x:n:N:D:lL:o:" opt; do
	case $opt in
	q) qemu=$OPTARG ;;
	a) accel=$OPTARG ;;
	s) smp=$OPTARG ;;
	m) mem=$OPTARG ;;
	r) rounds=$OPTARG ;;
	t) tmo=$OPTARG ;;
	x) xappend=$OPTARG ;;
	n) ncase=$OPTARG ;;
	N) [ -w "$OPTARG" ] || { echo "run-guests: cannot write $OPTARG" >&2; exit 2; }
	   dev_args=(-drive "file=$OPTARG,if=none,id=bbnvme,format=raw"
		     -device "nvme,serial=bbnvme,drive=bbnvme,max_ioqpairs=2") ;;
	D) scsi_kind=${OPTARG%%:*} scsi_img=${OPTARG#*:}
	   case $scsi_kind in
	   virtio-scsi|megasas) ;;
	   *) echo "run-guests: -D $scsi_kind: virtio-scsi or megasas" >&2; exit 2 ;;
	   esac
	   [ -w "$scsi_img" ] || { echo "run-guests: cannot write $scsi_img" >&2; exit 2; } ;;
	l) lsonly=1 ;;
	L) [ -r "$OPTARG" ] || { echo "run-guests: cannot read $OPTARG" >&2; exit 2; }
	   lsfile=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -ne 3 ] || [ -z "$out" ]; then
	echo "usage: $0 [-q QEMU] [-a tcg|kvm] [-s SMP] [-m MEM] [-r ROUNDS] [-t TIMEOUT] [-x APPEND] [-n CASES] [-N IMG] [-D KIND:IMG] [-l] [-L FILE] -o OUTDIR BASE PATCHED INITRAMFS" >&2
	exit 2
fi
for v in "smp:$smp" "rounds:$rounds" "tmo:$tmo" ${ncase:+"ncase:$ncase"}; do
	[[ ${v#*:} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "run-guests: ${v%%:*} '${v#*:}' is not a positive number" >&2; exit 2; }
done
if [ -n "$scsi_kind" ]; then
	# after the options: virtio-scsi gets one request queue per vCPU (-s)
	dev_args=(-drive "file=$scsi_img,if=none,id=bbdisk,format=raw")
	if [ "$scsi_kind" = virtio-scsi ]; then
		dev_args+=(-device "virtio-scsi-pci,id=bbhba,num_queues=$smp")
	else
		dev_args+=(-device "megasas-gen2,id=bbhba")
	fi
	# non-rotational, like null_blk: bfq does not idle on it
	dev_args+=(-device "scsi-hd,drive=bbdisk,bus=bbhba.0,product=bbscratch,rotation_rate=1")
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
keep='BENCH|LOCKSTAT|HOLD|IRQBLK'
[ -z "$lsonly" ] || keep=LOCKSTAT
: > "$results"
rc=0 qpid=
# a guest runs in a session of its own (setsid): it ends with this script
trap '[ -n "$qpid" ] && kill -- "-$qpid" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
# progress: cases done in the whole run, and the seconds they took
guests=$((2 * rounds)) g=0 done_cases=0 t_start=$(date +%s)
progress() {	# progress LOG: print the cases LOG gained since the last call
	local line n=0 left total el

	while IFS= read -r line; do
		n=$((n + 1))
		[ "$n" -le "$seen" ] && continue
		seen=$n done_cases=$((done_cases + 1))
		el=$(( $(date +%s) - t_start ))
		total=
		[ -n "$ncase" ] && total=$((guests * ncase))
		if [ -n "$total" ] && [ "$total" -ge "$done_cases" ]; then
			left=$(( el * (total - done_cases) / done_cases ))
			echo "run-guests: case $done_cases of $total (guest $g of $guests):" \
			     "${line#* }; about $((left / 60)) min $((left % 60)) s left" >&2
		else
			echo "run-guests: case $done_cases (guest $g of $guests): ${line#* }" >&2
		fi
	done < <(tr -d '\r' < "$1" | grep -E '^(BENCH|HOLD) ')
}
for r in $(seq "$rounds"); do
	for k in base patched; do
		log=$out/$k-round$r.log
		: > "$log"
		g=$((g + 1)) seen=0
		t0=$(date +%s)
		setsid timeout -k 10 "$tmo" "$qemu" "${accel_args[@]}" \
			-smp "$smp" -m "$mem" -kernel "${kernel[$k]}" -initrd "$initrd" \
			-append "console=ttyS0 loglevel=4 panic=-1 null_blk.nr_devices=0 bb.mode=bench bb.kernel=$k $xappend" \
			-display none -vga none -monitor none -nic none -serial "file:$log" -no-reboot \
			"${dev_args[@]}" </dev/null &
		qpid=$!
		while kill -0 "$qpid" 2>/dev/null; do
			sleep 5
			progress "$log"
		done
		wait "$qpid"
		qrc=$? qpid=
		progress "$log"
		# the first guest tells how many cases a guest runs
		[ -n "$ncase" ] || ncase=$seen
		echo "run-guests: $k round $r: ${accel} -smp $smp, $(( $(date +%s) - t0 ))s, rc=$qrc" >&2
		if [ $qrc -ne 0 ] || ! grep -q '^BB-DMESG-END' "$log"; then
			echo "run-guests: $k round $r did not finish cleanly (see $log)" >&2
			rc=1
		fi
		tr -d '\r' < "$log" | grep -E "^($keep) " |
			sed "s/\$/ round=$r/" >> "$results"
	done
done
if [ -n "$lsonly" ]; then
	echo "(QEMU $accel, -smp $smp, $rounds round(s) of lock_stat guests; raw: $results)"
	exit $rc
fi
[ -z "$lsfile" ] || grep '^LOCKSTAT ' "$lsfile" >> "$results"
"$here/report.sh" "$results" "$out" || rc=1
echo "(QEMU $accel, -smp $smp, $rounds round(s), interleaved; raw: $results)"
exit $rc
