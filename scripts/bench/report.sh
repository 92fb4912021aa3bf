#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark's report, from the BENCH and LOCKSTAT lines that
# run-guests.sh (or run.sh --dev) collected: into OUTDIR
#   table.md      the Markdown tables (also printed): IOPS, patched/base with
#                 its spread across rounds and a verdict, lock_stat per I/O
#   summary.csv   the same figures, one row per scheduler and job count
#   summary.json  the same, as JSON
#   results.csv   every case of every round (kernel, sched, jobs, round, ...)
#   iops.png      mean IOPS per scheduler and job count, base and patched
#   ratio.png     patched/base per scheduler and job count, with the spread
#   lockstat.png  scheduler-lock acquisitions per I/O (lock_stat builds only)
#   holdtime.png  scheduler-lock hold time per I/O (lock_stat's holdtime-total)
#   holdsites.csv the scheduler lock's hold time and acquisitions per I/O by
#                 call site (HOLDSITE lines), and holdsites.png, stacked
# From HOLD lines (run.sh --holds), instead: table.md with the longest
# irq-off / preempt-off sections, and holds.csv with every measured case.
# The plots need gnuplot (Debian: gnuplot-nox); without it they are left out
# with a note, and the rest is written.  table.awk says how the figures and
# verdicts are made.  Standalone (bash, awk, optional gnuplot), so that the
# --pack bundle carries it.
#
# usage: report.sh RESULTS OUTDIR [TITLE]

set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 RESULTS OUTDIR [TITLE]" >&2
	exit 2
fi
res=$1 out=$2 title=${3:-block-batch benchmark}
[ -r "$res" ] || { echo "report: cannot read $res" >&2; exit 1; }
grep -qE '^(BENCH|HOLD) ' "$res" || { echo "report: no BENCH or HOLD lines in $res" >&2; exit 1; }
mkdir -p "$out" || exit 1
# Provenance: scripts/run.sh writes meta.txt before its guests run; a
# report made on its own (the --pack bundle, a rerun) says so there too.
new_meta=1
[ -e "$out/meta.txt" ] && new_meta=0
{
	[ $new_meta -eq 0 ] || echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "report: $(date -u +%Y-%m-%dT%H:%M:%SZ) $0 $* on $(nproc) CPUs," \
	     "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
} >> "$out/meta.txt" || exit 1
tab() { awk -v fmt="$1" -f "$here/table.awk" "$res"; }
if ! grep -q '^BENCH ' "$res"; then
	tab md > "$out/table.md" && tab holdcsv > "$out/holds.csv" || exit 1
	cat "$out/table.md"
	echo "(report: $out: table.md holds.csv)"
	exit 0
fi
tab md > "$out/table.md" && tab csv > "$out/summary.csv" &&
	tab json > "$out/summary.json" && tab raw > "$out/results.csv" || exit 1
if grep -q '^HOLDSITE ' "$res"; then
	tab sitecsv > "$out/holdsites.csv" || exit 1
fi
cat "$out/table.md"

if ! command -v gnuplot > /dev/null; then
	echo "report: no gnuplot, so no plots (Debian: apt-get install gnuplot-nox)" >&2
	exit 0
fi
tab plot > "$out/plot.dat"
tab lockplot > "$out/lockplot.dat"
tab holdplot > "$out/holdplot.dat"
tab siteplot > "$out/siteplot.dat"
rows=$(wc -l < "$out/plot.dat")
[ "$rows" -gt 0 ] || exit 0
width=$((400 + 60 * rows))
gp() {
	gnuplot 2> "$out/gnuplot.log" || {
		echo "report: gnuplot failed (see $out/gnuplot.log)" >&2
		return 1
	}
}
# histogram PNG TITLE YLABEL DATA -- gnuplot commands for base vs patched
#   bars per scheduler/jobs row (DATA columns: label, base, patched)
histogram() {
	cat <<EOT
set terminal pngcairo size $width,480 noenhanced
set output "$out/$1"
set title "$title: $2"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -35
set ylabel "$3"
set yrange [0:*]
set key top right
plot "$4" using 2:xtic(1) title "base", "" using 3 title "patched"
EOT
}
{
	histogram iops.png "mean IOPS (scheduler/jobs)" IOPS "$out/plot.dat"
	cat <<EOT
set output "$out/ratio.png"
set title "$title: patched/base, mean of per-round ratios with the spread"
set style data yerrorbars
set ylabel "patched / base"
set yrange [*:*]
set xrange [-0.5:$rows - 0.5]
set grid ytics
plot "$out/plot.dat" using 0:4:5:6:xtic(1) title "patched/base" pt 7 lw 2, 1 title "1.0" lt 0
EOT
} | gp || exit 1
if [ -s "$out/lockplot.dat" ]; then
	histogram lockstat.png "scheduler-lock acquisitions per I/O (lock_stat)" \
		"acquisitions per I/O" "$out/lockplot.dat" | gp || exit 1
fi
if [ -s "$out/holdplot.dat" ]; then
	histogram holdtime.png "scheduler-lock hold time per I/O (lock_stat holdtime-total)" \
		"us per I/O (lockdep guest)" "$out/holdplot.dat" | gp || exit 1
fi
if [ -s "$out/siteplot.dat" ]; then
	cat <<EOT | gp || exit 1
set terminal pngcairo size $((600 + 60 * $(wc -l < "$out/siteplot.dat"))),480 noenhanced
set output "$out/holdsites.png"
set title "$title: scheduler-lock hold time per I/O by call site (lock_stat total, split by traced shares)"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.8
set xtics rotate by -35
set ylabel "us per I/O (lockdep guest)"
set yrange [0:*]
set key outside right top
sites = "insert dispatch finish merge depth other"
plot for [i=2:7] "$out/siteplot.dat" using i:xtic(1) title word(sites, i - 1)
EOT
fi
echo "(report: $out: table.md summary.csv summary.json results.csv $(cd "$out" && ls ./*.png 2>/dev/null | sed 's|^\./||' | tr '\n' ' '))"
