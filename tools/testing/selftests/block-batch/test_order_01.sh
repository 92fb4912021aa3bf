#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Dispatch order through mq-deadline on a multi-queue null_blk.
#
# Device: one null_blk, merging off.  One fio job per CPU (at most four),
# each pinned to its own CPU and writing its own region sequentially in
# bursts of 32 requests per io_submit(); a burst is inserted into
# mq-deadline under one lock hold, and every CPU's hw queue run dispatches
# from the one shared mq-deadline queue.
#
# block:block_rq_issue (the driver's ->queue_rq()) is traced with a global
# clock, and for each region the test counts inversions: a request issued
# after a request of the same region with a higher sector.  With the
# scheduler lock held across a whole dispatch batch, a batch that starts at
# a burst carries the whole burst, so any inversion fails the test.  Skips
# with fewer than 2 CPUs, without mq-deadline, or when no request was
# issued by a CPU other than its writer's (no concurrent dispatch).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

bb_depth=32
bb_bs=4096
bb_region_mb=8

_require_root
_require_program fio
_require_program awk
_require_fio_engine libaio
_require_null_blk

_require_trace_event block/block_rq_issue

# The trace clock in use before the test ("[local] global ..."), restored
# afterwards.
orig_clock=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$BB_TRACEFS/trace_clock")

_trace_reset() {
	echo 0 > "$BB_TRACEFS/tracing_on"
	echo 0 > "$BB_TRACEFS/events/block/block_rq_issue/enable"
	echo 0 > "$BB_TRACEFS/events/block/block_rq_issue/filter"
	echo "${orig_clock:-local}" > "$BB_TRACEFS/trace_clock" 2>/dev/null
	echo > "$BB_TRACEFS/trace"
}

_prep_test "dispatch order of sequential bursts through mq-deadline"

dev=bb_$TID
_nullb_create "$dev" || _skip "cannot create a null_blk device"
_require_sched "$dev" mq-deadline || _skip "mq-deadline is not available"
_set_sched "$dev" mq-deadline || _fail "cannot select mq-deadline"
echo 2 > "/sys/block/$dev/queue/nomerges" || _fail "cannot disable merging"

ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || _skip "needs at least 2 CPUs for concurrent dispatch"
jobs=$((ncpu < 4 ? ncpu : 4))
nr_req=$(cat "/sys/block/$dev/queue/nr_requests")
if [ $((jobs * bb_depth)) -gt "$nr_req" ]; then
	_fail "nr_requests $nr_req < $jobs jobs x $bb_depth: bursts would wait for scheduler tags"
fi

devt=$(_devt "$dev") || _fail "cannot read the dev_t of $dev"

# _order_run -- one round of bursts, block_rq_issue traced into
#   $BB_TMP/trace
_order_run() {
	_trace_reset
	echo global > "$BB_TRACEFS/trace_clock" ||
		{ _fail "cannot select the global trace clock"; return 1; }
	echo "dev == $devt" > "$BB_TRACEFS/events/block/block_rq_issue/filter" ||
		{ _fail "cannot set the block_rq_issue filter"; return 1; }
	echo 1 > "$BB_TRACEFS/events/block/block_rq_issue/enable"
	echo 1 > "$BB_TRACEFS/tracing_on"

	_watchdog_start "$dev"
	fio --name=bb-order --filename="/dev/$dev" --ioengine=libaio \
		--direct=1 --rw=write --bs=$bb_bs --iodepth=$bb_depth \
		--iodepth_batch_submit=$bb_depth \
		--iodepth_batch_complete_min=$bb_depth \
		--iodepth_batch_complete_max=$bb_depth \
		--numjobs=$jobs --size=${bb_region_mb}M \
		--offset_increment=${bb_region_mb}M \
		--cpus_allowed="0-$((jobs - 1))" --cpus_allowed_policy=split \
		--group_reporting > "$BB_TMP/fio.log" 2>&1 &
	_wait_pid $! || _fail_io "fio failed: $(tail -n 5 "$BB_TMP/fio.log")"
	_watchdog_stop

	echo 0 > "$BB_TRACEFS/tracing_on"
	cat "$BB_TRACEFS/trace" > "$BB_TMP/trace"
	_trace_reset
}

# _order_count -- "issued inversions foreign" of $BB_TMP/trace.  Per
# region: issued requests, inversions, requests issued by a CPU other than
# the one the region's job runs on (dispatched by another CPU's run).
# cpus_allowed_policy=split puts job N, which writes region N, on CPU N.
_order_count() {
	awk -v region=$((bb_region_mb * 2048)) '
		/block_rq_issue:/ {
			if (!match($0, /\[[0-9]+\]/))
				next
			cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0
			for (i = 1; i < NF; i++)
				if ($(i + 1) == "+")
					break
			if (i == NF)
				next
			sector = $i + 0
			r = int(sector / region)
			n++
			if ((r in last) && sector < last[r])
				inv++
			last[r] = sector
			if (cpu != r)
				foreign++
		}
		END { printf "%d %d %d\n", n, inv, foreign }' "$BB_TMP/trace"
}

# Concurrent dispatch is what the test needs, and how often the CPUs'
# queue runs overlap depends on the host (under a loaded host one round
# saw no request dispatched by another CPU): up to RUNS rounds, until
# one has requests issued by another CPU.  Bounded by count, not time.
RUNS=${RUNS:-5}
expected=$((jobs * bb_region_mb * 1024 * 1024 / bb_bs))
orig_buf_kb=$(_trace_buf_kb)
echo 8192 > "$BB_TRACEFS/buffer_size_kb"
run=0 foreign=0
while [ "$BB_ERR" -eq 0 ] && [ "$foreign" -eq 0 ] && [ "$run" -lt "$RUNS" ] && ! _stalled; do
	run=$((run + 1))
	_order_run || break
	[ "$BB_ERR" -eq 0 ] || break
	read -r issued inversions foreign < <(_order_count)
	_log "$jobs jobs, $issued requests issued ($expected written)," \
	     "$foreign issued by another CPU, $inversions inversions (round $run)"
	if [ "$issued" -ne "$expected" ]; then
		_fail "traced $issued requests, expected $expected (lost events?)"
	fi
	if [ "$inversions" -ne 0 ]; then
		_fail "$inversions dispatch order inversions"
	fi
done
echo "${orig_buf_kb:-1408}" > "$BB_TRACEFS/buffer_size_kb"
if [ "$BB_ERR" -eq 0 ] && [ "$foreign" -eq 0 ] && ! _stalled; then
	# No CPU dispatched another CPU's requests: there was no
	# concurrent dispatch, so nothing could have been reordered.
	_skip_later "no request was issued by a CPU other than its" \
		    "writer's ($jobs jobs, $run rounds): no concurrent dispatch to check"
fi

_show_result
