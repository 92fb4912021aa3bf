#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark's tooling without a kernel build: run.sh checks every
# argument before it fetches anything; --dev refuses a disk in use (on loop
# devices: mounted, swap, a partition-less file, a write without the flag)
# and reads only; the report's figures, spreads and verdicts, its CSV, JSON
# and plots, the lock hold times per I/O and by call site; the guest's
# parse of /proc/lock_stat and of the hold-site histogram; run-guests.sh's
# progress lines.
. "$(dirname "$0")/lib.sh"

# --- run.sh: bad arguments, and nothing fetched ---------------------------
for a in "--smp abc" "--rounds 0" "--runtime -1" "--jobs 1,x" "--scheds none,foo" \
	 "--irqmode 5" "--rw bogus" "--label base" "--jobs" "--disk sata" \
	 "--disk megasas --ublk pc" "--scsi-qd 0"; do
	# shellcheck disable=SC2086
	expect_fail "^block-batch: error: " "$TOP/scripts/run.sh" $a
done
expect_fail "no such config fragment" "$TOP/scripts/run.sh" -f "$T/nope.config"
expect_fail "--dev runs on the booted kernel" "$TOP/scripts/run.sh" --dev /dev/null --pack "$T/p"
expect_fail "--holds: no --pack or --ublk" "$TOP/scripts/run.sh" --holds --ublk pc
expect_fail "--dev runs on the booted kernel" "$TOP/scripts/run.sh" --dev /dev/null --holds
expect_fail "--poll: null_blk only" "$TOP/scripts/run.sh" --poll --disk virtio-scsi
expect_fail "--poll: null_blk only" "$TOP/scripts/run.sh" --poll --holds
expect_fail "--hdd: null_blk only" "$TOP/scripts/run.sh" --hdd --disk megasas
expect_fail "--hdd: null_blk only" "$TOP/scripts/run.sh" --hdd --poll
expect_fail "--hdd: null_blk only" "$TOP/scripts/run.sh" --hdd --ublk pc
[ ! -e "$BB_CACHE" ] || fail "run.sh with bad arguments created the cache $BB_CACHE"

# --- the report of run.sh --holds: HOLD lines only -------------------------
# 2 rounds of one case: max and median per kernel, where the longest
# section of each kernel was; a case that failed (NA) counts for nothing.
{
	echo "HOLD kernel=base sched=bfq nr=2048 tracer=irqsoff us=40 resets=4 iops=9 where=a,b round=1"
	echo "HOLD kernel=patched sched=bfq nr=2048 tracer=irqsoff us=300 resets=4 iops=9 where=c,d round=1"
	echo "HOLD kernel=base sched=bfq nr=2048 tracer=irqsoff us=60 resets=4 iops=9 where=e,f round=2"
	echo "HOLD kernel=patched sched=bfq nr=2048 tracer=irqsoff us=NA resets=0 iops=NA where=setup-failed round=2"
} > "$T/holds.txt"
"$TOP/scripts/bench/report.sh" "$T/holds.txt" "$T/hrep" > "$T/hrep.out" || fail "report.sh failed on HOLD lines"
grep -q '^| bfq | 2048 | irqsoff | 60 | 50 | 300 | 300 | e,f | c,d |$' "$T/hrep/table.md" ||
	{ cat "$T/hrep/table.md"; fail "the holds table is wrong"; }
[ "$(grep -c '^base,bfq,2048,irqsoff,' "$T/hrep/holds.csv")" -eq 2 ] ||
	{ cat "$T/hrep/holds.csv"; fail "holds.csv does not hold both base cases"; }
echo "ok: the holds table: maximum and median per kernel, where the longest section was"

# --- the report of run.sh --disk: interrupt threads' blocked time --------
# per 1000 I/Os, averaged over rounds; MB/s from IOPS x 4 KiB; lost events
# summed, so that a trace that overflowed shows
{
	for r in 1 2; do
		echo "BENCH kernel=base sched=none jobs=4 iops=1000 merges=0 round=$r"
		echo "IRQBLK kernel=base sched=none jobs=4 ios=10000 us=$((r * 4000)) n=300 sw=5000 lost=0 round=$r"
		echo "BENCH kernel=patched sched=none jobs=4 iops=2000 merges=0 round=$r"
		echo "IRQBLK kernel=patched sched=none jobs=4 ios=20000 us=100 n=10 sw=4000 lost=$r round=$r"
	done
} > "$T/irq.txt"
"$TOP/scripts/bench/report.sh" "$T/irq.txt" "$T/irep" > "$T/irep.out" || fail "report.sh failed on IRQBLK lines"
grep -q '^| none | 4 | 4.1 | 8.2 | 600.0 | 5.0 | 30.0 | 0.5 | 500.0/200.0 | 3 |$' "$T/irep/table.md" ||
	{ cat "$T/irep/table.md"; fail "the interrupt-thread table is wrong"; }
echo "ok: the interrupt-thread table: blocked time and periods per 1000 I/Os, MB/s, lost events"

# --- the report: figures, spread, verdicts, formats -----------------------
# 5 rounds; none: equal; mq-deadline: 1.5x; bfq: the same on average but
# all over the place.  Then a run whose 'none' moved: too noisy to judge.
res=$T/res.txt
for r in 1 2 3 4 5; do
	for k in base patched; do
		for s in none mq-deadline bfq; do
			v=1000
			[ $k = patched ] && [ $s = mq-deadline ] && v=1500
			[ $s = bfq ] && [ $k = patched ] && { [ $((r % 2)) -eq 1 ] && v=1600 || v=500; }
			v=$((v + r))	# not all equal: a spread to compute
			echo "BENCH kernel=$k sched=$s jobs=4 iops=$v merges=7 round=$r"
		done
		echo "LOCKSTAT kernel=$k sched=mq-deadline jobs=4 ios=1000 class=sched-lock con=10 acq=$([ $k = base ] && echo 2130 || echo 1370) hold=$([ $k = base ] && echo 1.5 || echo $r.25) round=$r"
	done
done > "$res"
"$TOP/scripts/bench/report.sh" "$res" "$T/rep" "test" > "$T/rep.out" || fail "report.sh failed"
for f in table.md summary.csv summary.json results.csv meta.txt; do
	[ -s "$T/rep/$f" ] || fail "report.sh wrote no $f"
done
grep -q '^report: .* on [0-9]* CPUs' "$T/rep/meta.txt" ||
	fail "report.sh's meta.txt does not say where the report was made"
python3 -m json.tool "$T/rep/summary.json" > /dev/null || fail "summary.json is no JSON"
grep -q '^mq-deadline,4,1003,1503,1.49[0-9],.*,95%,5,.*"faster"$' "$T/rep/summary.csv" ||
	{ cat "$T/rep/summary.csv"; fail "mq-deadline 1.5x is not 'faster' with a 95% interval"; }
grep -q '^bfq,4,.*"no difference resolved"$' "$T/rep/summary.csv" ||
	{ cat "$T/rep/summary.csv"; fail "a ratio all over the place was resolved"; }
grep -q '^none,4,.*"control: no difference resolved"$' "$T/rep/summary.csv" ||
	{ cat "$T/rep/summary.csv"; fail "the control is not reported as such"; }
# per I/O averaged over the rounds; the longest hold is the maximum
grep -q '| mq-deadline | 4 | 2.130 | 0.010 | 1.50 | 1.370 | 0.010 | 5.25 |' "$T/rep/table.md" ||
	{ cat "$T/rep/table.md"; fail "lock_stat per I/O or the longest hold is missing from table.md"; }
[ "$(wc -l < "$T/rep/results.csv")" -eq 31 ] || fail "results.csv does not hold all 30 cases"
if command -v gnuplot > /dev/null; then
	for f in iops.png ratio.png lockstat.png; do
		file "$T/rep/$f" | grep -q 'PNG image' || fail "report.sh wrote no plot $f"
	done
else
	"$TOP/scripts/bench/report.sh" "$res" "$T/rep2" 2>&1 >/dev/null | grep -q "no gnuplot" ||
		fail "report.sh without gnuplot did not say why the plots are missing"
	echo "# no gnuplot here: plots not checked"
fi
sed 's/\(kernel=patched sched=none jobs=4 iops=\)[0-9]*/\11400/' "$res" > "$T/noisy.txt"
awk -v fmt=csv -f "$TOP/scripts/bench/table.awk" "$T/noisy.txt" > "$T/noisy.csv"
grep -q '^none,4,.*"control differs: too noisy to judge"$' "$T/noisy.csv" &&
grep -q '^mq-deadline,4,.*"too noisy to judge: none 1.3' "$T/noisy.csv" ||
	{ cat "$T/noisy.csv"; fail "a control that moved did not make the run too noisy to judge"; }
# Two rounds: min-max, no verdict, and no "too noisy" either, even where
# 'none' moved a little (min-max of two ratios almost never holds 1).
grep -E 'round=[12]$' "$res" |
	sed 's/\(kernel=patched sched=none jobs=4 iops=\)100\([12]\)/\1101\2/' > "$T/two.txt"
awk -v fmt=csv -f "$TOP/scripts/bench/table.awk" "$T/two.txt" > "$T/two.csv"
grep -q '^mq-deadline,4,.*,min-max,2,.*"too few rounds for an interval"$' "$T/two.csv" ||
	{ cat "$T/two.csv"; fail "two rounds are not reported as min-max, too few for an interval"; }
echo "ok: report: verdicts faster / no difference / control / too noisy / too few rounds"

# --- run-guests.sh: progress with a stand-in for QEMU ---------------------
mk_bench_qemu "$T/qemu"
touch "$T/k1" "$T/k2" "$T/i"
"$TOP/scripts/bench/run-guests.sh" -q "$T/qemu" -r 2 -n 2 -o "$T/rg" "$T/k1" "$T/k2" "$T/i" \
	> "$T/rg.out" 2> "$T/rg.err" || { cat "$T/rg.err"; fail "run-guests.sh failed"; }
grep -q '^run-guests: case 1 of 8 (guest 1 of 4): kernel=base sched=none .*left$' "$T/rg.err" &&
grep -q '^run-guests: case 8 of 8 (guest 4 of 4): ' "$T/rg.err" ||
	{ cat "$T/rg.err"; fail "run-guests.sh printed no progress lines"; }
[ -s "$T/rg/summary.csv" ] || fail "run-guests.sh wrote no report"
expect_fail "-s 'abc': not a positive number" \
	"$TOP/scripts/bench/run-guests.sh" -s abc -o "$T/x" "$T/k1" "$T/k2" "$T/i"
echo "ok: run-guests.sh: case i of N and the time left, the report"
# run.sh's lock_stat guests (-l): their LOCKSTAT lines only, no report; the
# IOPS run (-L) puts them in its table, and its own BENCH lines only
"$TOP/scripts/bench/run-guests.sh" -l -q "$T/qemu" -r 1 -o "$T/ls" "$T/k1" "$T/k2" "$T/i" \
	> /dev/null 2> "$T/ls.err" || { cat "$T/ls.err"; fail "run-guests.sh -l failed"; }
[ "$(grep -c '^LOCKSTAT ' "$T/ls/results.txt")" -eq 4 ] &&
[ "$(grep -c '^HOLDSITE ' "$T/ls/results.txt")" -eq 4 ] &&
! grep -qvE '^(LOCKSTAT|HOLDSITE) ' "$T/ls/results.txt" ||
	{ cat "$T/ls/results.txt"; fail "run-guests.sh -l kept other than the LOCKSTAT and HOLDSITE lines"; }
[ ! -e "$T/ls/table.md" ] || fail "run-guests.sh -l wrote a report of lockdep kernels' IOPS"
"$TOP/scripts/bench/run-guests.sh" -q "$T/qemu" -r 1 -o "$T/rg2" -L "$T/ls/results.txt" \
	"$T/k1" "$T/k2" "$T/i" > /dev/null 2> "$T/rg2.err" || { cat "$T/rg2.err"; fail "run-guests.sh -L failed"; }
# acq = length of the kernel's name / 100 I/Os, counted once each, not twice
grep -q '^| bfq | 1 | 0.040 | 0.000 | 2.00 | 0.070 | 0.000 | 2.00 |$' "$T/rg2/table.md" ||
	{ cat "$T/rg2/table.md"; fail "the lock_stat guests' figures are not in the IOPS run's table"; }
[ "$(grep -c '^BENCH ' "$T/rg2/results.txt")" -eq 4 ] || fail "run-guests.sh -L took BENCH lines from the lock_stat run"
echo "ok: run-guests.sh -l / -L: lock_stat guests' figures in the IOPS table, their IOPS not"
# hold time per I/O (3 us base, 1 us patched) and the ceiling, 3x; by call
# site, traced: insert 2 us base (length 4 x 100000 ns / 200 I/Os) and 3.5
# patched, dispatch 0.5: shares of lock_stat's 3 and 1 us
# busy 0.3% and 0.1% of the run; queue_lock's zero hold has no ceiling
grep -q '^| bfq | 1 | 3.000 | 1.000 | 333.3 | 1000.0 | 3.000 | 0.3 | 0.1 |$' "$T/rg2/table.md" &&
grep -q '^| bfq | 1 | 0.000 | 0.000 | - | - | - | 0.0 | 0.0 |$' "$T/rg2/table.md" &&
! grep -qi 'inf\b\|nan' "$T/rg2/table.md" "$T/rg2/summary.json" &&
python3 -m json.tool "$T/rg2/summary.json" > /dev/null ||
	{ cat "$T/rg2/table.md"; fail "no hold time per I/O, ceiling and busy share from the lock_stat guests"; }
grep -q '^| bfq | 1 | base | 2.400 (1.000) | 0.600 (0.250) | - | - | - | - | 3.000 | 0.83 |$' "$T/rg2/table.md" &&
grep -q '^| bfq | 1 | patched | 0.875 (1.000) | 0.125 (0.250) | - | - | - | - | 1.000 | 4.00 |$' "$T/rg2/table.md" ||
	{ cat "$T/rg2/table.md"; fail "no hold time by call site"; }
grep -q '^bfq,1,.*,3.000,1.000,3.000,"' "$T/rg2/summary.csv" &&
grep -q '^patched,bfq,1,insert,1.000,0.875,3.500$' "$T/rg2/holdsites.csv" ||
	{ cat "$T/rg2/summary.csv" "$T/rg2/holdsites.csv"; fail "hold times missing from the CSVs"; }
if command -v gnuplot > /dev/null; then
	for f in holdtime.png holdsites.png; do
		file "$T/rg2/$f" | grep -q 'PNG image' || fail "report.sh wrote no plot $f"
	done
fi
echo "ok: hold time per I/O, its ceiling, and by call site, in table, CSV and plots"

# --- the guest's lock figures: /proc/lock_stat rows and the traced hold
# sites, parsed from stand-in files ----------------------------------------
(
	. "$TOP/scripts/bench/fio-case.sh"
	LOCK_STAT_FILE=$T/lock_stat
	cat > "$LOCK_STAT_FILE" <<'EOT'
lock_stat version 0.4
                              class name    con-bounces    contentions   waittime-min   waittime-max waittime-total   waittime-avg    acq-bounces   acquisitions   holdtime-min   holdtime-max holdtime-total   holdtime-avg
                               &dd->lock:             3              4           0.10           2.00           3.00           0.75             10           2000           0.05          12.50        1500.25           0.75
                               ---------
                               &dd->lock              4          [<0>] dd_insert_requests+0x3c/0x1a0
                           &dd->lock#2/1:             0              1           0.10           0.10           0.10           0.10              0            100           0.05          40.00          99.75           1.00
                          &q->queue_lock:             0              0           0.00           0.00           0.00           0.00              0              7           0.05           1.00           2.00           0.29
                                &other_lock:          9              9           0.00           0.00           0.00           0.00              0            999           0.05           1.00           2.00           0.29
EOT
	bench_lockstat "LOCKSTAT x" > "$T/ls.out"
	grep -qx 'LOCKSTAT x class=sched-lock con=5 acq=2100 hold=40.00 htot=1600.00 wtot=3.10' "$T/ls.out" &&
	grep -qx 'LOCKSTAT x class=&q->queue_lock con=0 acq=7 hold=1.00 htot=2.00 wtot=0.00' "$T/ls.out" &&
	[ "$(wc -l < "$T/ls.out")" -eq 2 ] || { cat "$T/ls.out"; exit 1; }
	# the triggers as tracefs takes them, then the histogram's stacks
	HOLD_TRACEFS=$T/tracefs
	mkdir -p "$HOLD_TRACEFS/events/lock/lock_acquired" "$HOLD_TRACEFS/events/lock/lock_release" \
		"$HOLD_TRACEFS/events/synthetic/$HOLD_EVENT"
	touch "$HOLD_TRACEFS"/events/lock/lock_{acquired,release}/trigger "$HOLD_TRACEFS/synthetic_events" \
		"$HOLD_TRACEFS/events/synthetic/$HOLD_EVENT/trigger"
	bench_holdsites_start || exit 1
	grep -qx 'hist:keys=lockdep_addr,common_pid:ts0=common_timestamp if name == "&dd->lock" || name == "&bfqd->lock" || name == "mq-deadline" || name == "bfq" || name == "kyber"' \
		"$HOLD_TRACEFS/events/lock/lock_acquired/trigger" &&
	grep -qx 'hist:keys=lockdep_addr,common_pid:ns=common_timestamp-$ts0:onmatch(lock.lock_acquired).trace(sched_lock_hold,$ns) if name == .*' \
		"$HOLD_TRACEFS/events/lock/lock_release/trigger" || exit 2
	cat > "$HOLD_TRACEFS/events/synthetic/$HOLD_EVENT/hist" <<'EOT'
# event histogram
#
# trigger info: hist:keys=common_stacktrace:vals=hitcount,ns:sort=hitcount:size=8192 [active]
#

{ common_stacktrace:
         event_hist_trigger+0x1a0/0x1c0
         lock_release+0x2b0/0x300
         _raw_spin_unlock+0x1d/0x40
         dd_insert_requests+0x9a/0x1a0
         blk_mq_dispatch_plug_list+0x1c0/0x200
} hitcount:        100  ns:      50000
{ common_stacktrace:
         _raw_spin_unlock_irq+0x1d/0x40
         __blk_mq_sched_dispatch_requests+0x2c0/0x600
} hitcount:         30  ns:      60000
{ common_stacktrace:
         _raw_spin_unlock_irqrestore+0x1d/0x40
         bfq_finish_requeue_request+0x100/0x200 [bfq]
} hitcount:          5  ns:       1000
{ common_stacktrace:
         _raw_spin_unlock+0x1d/0x40
         dd_bio_merge+0x50/0x90
} hitcount:          7  ns:       7000
{ common_stacktrace:
         _raw_spin_unlock+0x1d/0x40
         dd_insert_requests+0x11/0x1a0
} hitcount:         10  ns:       5000
{ common_stacktrace:
         _raw_spin_unlock_irq+0x1d/0x40
         bfq_exit_icq+0x50/0x90
} hitcount:          1  ns:        500
{ common_stacktrace:
         _raw_spin_unlock_irqrestore+0x1d/0x40
         bfq_idle_slice_timer_body+0x50/0x90
         bfq_idle_slice_timer+0x20/0x40
         __hrtimer_run_queues+0x100/0x200
         hrtimer_interrupt+0x100/0x200
         asm_sysvec_apic_timer_interrupt+0x1a/0x20
         blk_mq_dispatch_rq_list+0x100/0x400
} hitcount:          3  ns:        300

Totals:
    Hits: 156
    Entries: 7
    Dropped: 2
EOT
	bench_holdsites_stop "HOLDSITE y" > "$T/hs.out"
	printf '%s\n' "HOLDSITE y site=insert n=110 ns=55000" "HOLDSITE y site=dispatch n=30 ns=60000" \
		"HOLDSITE y site=finish n=5 ns=1000" "HOLDSITE y site=merge n=7 ns=7000" \
		"HOLDSITE y site=other n=4 ns=800" "HOLDSITE y site=dropped n=2 ns=0" | cmp -s - "$T/hs.out" ||
		{ cat "$T/hs.out"; exit 3; }
	# and the triggers removed, last first, then the event
	tail -n1 "$HOLD_TRACEFS/synthetic_events" | grep -qx "!$HOLD_EVENT" &&
	tail -n1 "$HOLD_TRACEFS/events/lock/lock_acquired/trigger" | grep -q '^!hist:keys=lockdep_addr' || exit 4
) || fail "the guest's lock_stat rows or traced hold sites are misread (step $?)"
echo "ok: lock_stat rows summed per lock, hold sites sorted from the stacks, triggers removed"

# --- the scaling models, by hand -------------------------------------------
# 1: base hold D = 1 us, one job's I/O 10 us; at 2 jobs R = 1.1, wait 0.1;
# patched D = 0.5: X(2)/X(1) 1.99501 against the base's 1.98020, and at 3
# jobs (where a queue of 2 shows) 1.016 times the base's.  2: serial
# fractions 0.1 and 0.05; the base's X(2)/X(1) of 1.6 fits k = 0.075, a
# third of the acquisitions gives the patched kernel 0.025: 1.818 against
# 1.6 at 2 CPUs, 2.4 against 1.818 at 3; with a measured 1-job ratio of
# 0.9 and 1.1 at 2, model 2 predicts 1.023 (-7%), model 1 0.907 (-18%)
{
	echo "LOCKSTAT kernel=base sched=bfq jobs=1 ios=1000 iops=100000 class=sched-lock con=0 acq=9 hold=1 htot=1000 wtot=0"
	echo "LOCKSTAT kernel=base sched=bfq jobs=4 ios=1000 iops=150000 class=sched-lock con=0 acq=9 hold=1 htot=1000 wtot=50"
	echo "LOCKSTAT kernel=patched sched=bfq jobs=1 ios=1000 iops=100000 class=sched-lock con=0 acq=3 hold=1 htot=500 wtot=0"
	echo "LOCKSTAT kernel=patched sched=bfq jobs=1 ios=1000 iops=100000 class=&q->queue_lock con=0 acq=9 hold=1 htot=900 wtot=0"
} > "$T/model.txt"
awk -v cpus="1 2 3" -v scaling="mq-deadline:2=9 bfq:2=1.6" -v measured="bfq:1=0.9,2=1.1" \
	-f "$TOP/scripts/bench/scale-model.awk" "$T/model.txt" > "$T/model.out"
grep -qx '| base | 4 | 2 | 0.100 | 0.050 |' "$T/model.out" &&
grep -qx "| 1 (hold time), factor | 1.000 | 1.007 | 1.016 |" "$T/model.out" &&
grep -qx "| 1 (hold time), error | - | -18% | - |" "$T/model.out" &&
grep -qx "| 2 (k = 0.0750 base, 0.0250 patched), factor | 1.000 | 1.136 | 1.320 |" "$T/model.out" &&
grep -qx "| 2 (k = 0.0750 base, 0.0250 patched), error | - | -7% | - |" "$T/model.out" ||
	{ cat "$T/model.out"; fail "the scaling models are wrong"; }
echo "ok: the scaling models: the wait of one lock, the fit on the base, the projections"

# --- --dev: refusals and a read-only run, on loop devices ------------------
expect_fail "no such device" "$TOP/scripts/run.sh" --dev "$T/nodisk" --label base
expect_fail "not a block device" "$TOP/scripts/run.sh" --dev "$T/res.txt" --label base
if [ "$(id -u)" -ne 0 ] || ! command -v losetup > /dev/null ||
   ! losetup -f > /dev/null 2>&1; then
	echo "# SKIP: the loop-device part needs root and a free loop device"
	exit 4
fi
loops=()
mnt=$T/mnt
cleanup_loops() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	for l in "${loops[@]}"; do
		swapoff "$l" 2>/dev/null
		losetup -d "$l" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup_loops EXIT
trap 'exit 1' INT TERM
# a refusal that fails to come must not start a long run
quick=(--label base --scheds none --jobs 1 --runtime 1 --rounds 1)
mkloop() {
	truncate -s 64M "$T/$1.img" && l=$(losetup -f --show "$T/$1.img") &&
		loops+=("$l") || fail "cannot set up a loop device"
}
mkloop clean
clean=$l
"$TOP/scripts/bench/dev-bench.sh" --check-only "$clean" 2> "$T/err" ||
	{ cat "$T/err"; fail "an unused loop device was refused"; }
expect_fail "--label: base or patched" "$TOP/scripts/run.sh" --dev "$clean" --label other
expect_fail "destroys its data: add --write-destroys-data" \
	"$TOP/scripts/run.sh" --dev "$clean" "${quick[@]}" --rw randwrite
# mounted
mkloop fs
if mkfs.ext4 -q -F "$l" 2>/dev/null && mkdir -p "$mnt" && mount "$l" "$mnt" 2>/dev/null; then
	expect_fail "refusing a disk in use: .* is mounted on $mnt" \
		"$TOP/scripts/run.sh" --dev "$l" "${quick[@]}"
	umount "$mnt"
else
	echo "# mount not permitted here: the mounted refusal not checked"
fi
# swap
mkloop swap
if mkswap -q "$l" > /dev/null 2>&1 && swapon "$l" 2>/dev/null; then
	expect_fail "refusing a disk in use: $l is active swap" \
		"$TOP/scripts/run.sh" --dev "$l" "${quick[@]}"
	swapoff "$l"
else
	echo "# swapon not permitted here: the swap refusal not checked"
fi
# backing a loop device
mkloop backed
backed=$l
if l2=$(losetup -f --show "$backed" 2>/dev/null); then
	loops+=("$l2")
	expect_fail "refusing a disk in use: $backed backs ${l2#/dev/}" \
		"$TOP/scripts/run.sh" --dev "$backed" "${quick[@]}"
	losetup -d "$l2"
else
	echo "# a loop device over a loop device cannot be made here: not checked"
fi
echo "# partitions and holders (device mapper) cannot be made here: the loop" \
     "driver scans no partitions in this container and there is no dm"

# a short read-only run: the data is unchanged, the results are there
dd if=/dev/urandom of="$T/clean.img" bs=1M count=64 conv=notrunc status=none
sum0=$(sha1sum < "$T/clean.img")
sched0=$(cat "/sys/block/${clean#/dev/}/queue/scheduler")
for k in base patched; do
	"$TOP/scripts/bench/dev-bench.sh" --label $k --scheds "none mq-deadline" \
		--jobs 1 --runtime 1 --rounds 1 -o "$T/dev" "$clean" > "$T/dev.out" 2> "$T/dev.err" ||
		{ cat "$T/dev.err"; fail "dev-bench.sh --label $k failed on $clean"; }
done
[ "$(sha1sum < "$T/clean.img")" = "$sum0" ] || fail "the read-only run changed the disk's data"
[ "$(cat "/sys/block/${clean#/dev/}/queue/scheduler")" = "$sched0" ] ||
	fail "the disk's scheduler was not put back: $(cat "/sys/block/${clean#/dev/}/queue/scheduler")"
grep -q '^BENCH kernel=base sched=mq-deadline jobs=1 iops=[0-9]' "$T/dev/results.txt" &&
grep -q '^BENCH kernel=patched sched=none jobs=1 iops=[0-9]' "$T/dev/results.txt" ||
	{ cat "$T/dev/results.txt"; fail "no figures from the read-only run"; }
[ -s "$T/dev/summary.csv" ] || fail "no report after both labels ran"
grep -q 'case 2 of 2: kernel=patched' "$T/dev.err" || fail "dev-bench.sh printed no progress"
echo "ok: --dev: a read-only run left the data and the scheduler as they were"
