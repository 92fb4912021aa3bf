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
# with the launcher (../boot.sh, ../lib.sh), the kernels and a QEMU, to a
# bigger machine.
#
# usage: run-guests.sh [-q QEMU] [-a tcg|kvm] [-s SMP] [-m MEM] [-r ROUNDS]
#                      [-t TIMEOUT] [-x APPEND] [-n CASES] [-d DISK]...
#                      [-l] [-L FILE] -o OUTDIR BASE PATCHED INITRAMFS
#   -q, -a, -s, -m, -t, -x, -d  scripts/boot.sh's options for each guest:
#               QEMU binary or wrapper, tcg (default) or kvm, vCPUs (default
#               2), memory (default 4G), timeout, extra kernel command line
#               (e.g. "bb.jobs=1,8,32 bb.runtime=20"), scratch disk
#               (run.sh --holds, --disk)
#   -n CASES    cases per guest, for the progress lines (default: learnt
#               from the first guest)
#   -l          lock_stat guests (kernels built with configs/lockstat.config):
#               keep only their LOCKSTAT and HOLDSITE lines in
#               OUTDIR/results.txt and write no report; their IOPS, under
#               lockdep, are not compared
#   -L FILE     add FILE's LOCKSTAT and HOLDSITE lines (the results.txt of
#               a -l run) to this run's results before the report
# Exit: 0 if every guest finished; 1 otherwise (the report is still written).

set -u
here=$(cd "$(dirname "$0")" && pwd)
boot=$here/../boot.sh
# each guest: the benchmark's kernel command line, 4G unless -m says more
bargs=(-m 4G -x "loglevel=4 bb.mode=bench")
accel=tcg smp=2 rounds=8 out= ncase= lsonly= lsfile=
while getopts "q:a:s:m:t:x:d:r:n:lL:o:" opt; do
	case $opt in
	q|m|t|x|d) bargs+=("-$opt" "$OPTARG") ;;
	a) accel=$OPTARG bargs+=(-a "$OPTARG") ;;
	s) smp=$OPTARG bargs+=(-s "$OPTARG") ;;
	r) rounds=$OPTARG ;;
	n) ncase=$OPTARG ;;
	l) lsonly=1 ;;
	L) [ -r "$OPTARG" ] || { echo "run-guests: cannot read $OPTARG" >&2; exit 2; }
	   lsfile=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -ne 3 ] || [ -z "$out" ]; then
	echo "usage: $0 [-q QEMU] [-a tcg|kvm] [-s SMP] [-m MEM] [-r ROUNDS] [-t TIMEOUT] [-x APPEND] [-n CASES] [-d DISK]... [-l] [-L FILE] -o OUTDIR BASE PATCHED INITRAMFS" >&2
	exit 2
fi
for v in "rounds:$rounds" ${ncase:+"ncase:$ncase"}; do
	[[ ${v#*:} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "run-guests: ${v%%:*} '${v#*:}' is not a positive number" >&2; exit 2; }
done
declare -A kernel=([base]=$1 [patched]=$2)
initrd=$3
for f in "${kernel[base]}" "${kernel[patched]}" "$initrd"; do
	[ -r "$f" ] || { echo "run-guests: cannot read $f" >&2; exit 1; }
done
# the launcher checks its options before the first guest, not at each
"$boot" -n "${bargs[@]}" "${kernel[base]}" "$initrd" /dev/null > /dev/null || exit 2
mkdir -p "$out" || exit 1
results=$out/results.txt
keep='BENCH|LOCKSTAT|HOLDSITE|HOLD|IRQBLK'
[ -z "$lsonly" ] || keep='LOCKSTAT|HOLDSITE'
: > "$results"
rc=0 qpid=
# a guest runs in a process group of its own: the launcher ends it when it is
# terminated, and it is when this script ends
trap '[ -n "$qpid" ] && kill "$qpid" 2>/dev/null' EXIT
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
		"$boot" "${bargs[@]}" -x "bb.kernel=$k" "${kernel[$k]}" "$initrd" "$log" &
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
[ -z "$lsfile" ] || grep -E '^(LOCKSTAT|HOLDSITE) ' "$lsfile" >> "$results"
"$here/report.sh" "$results" "$out" || rc=1
echo "(QEMU $accel, -smp $smp, $rounds round(s), interleaved; raw: $results)"
exit $rc
