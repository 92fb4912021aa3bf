# SPDX-License-Identifier: GPL-2.0
#
# Dispatch order: sequential bursts written from several CPUs at once
# through one scheduler, traced with a global clock, in rounds until one
# shows what the test needs.  Sourced by test_order_NN.sh after
# test_common.sh.
#
# One fio job per CPU (at most four), each pinned to its own CPU and
# writing its own region of BB_ORDER_REGION_MB sequentially in bursts of
# BB_ORDER_DEPTH requests per io_submit() (cpus_allowed_policy=split puts
# job N, which writes region N, on CPU N).

BB_ORDER_DEPTH=32
BB_ORDER_BS=4096
BB_ORDER_REGION_MB=8

# BB_ORDER_AWK_SECTOR -- an awk function for the order tests' programs:
#   rq_sector() is the start sector of a block_rq_issue trace line ("...
#   SECTOR + NR ..."), -1 for a line without one
BB_ORDER_AWK_SECTOR='
	function rq_sector(   i) {
		for (i = 1; i < NF; i++)
			if ($(i + 1) == "+")
				return $i + 0
		return -1
	}'

# _order_require -- what every order test needs: root, fio with libaio,
#   awk, null_blk and the block_rq_issue event (mounts tracefs; skips
#   when it is in use)
_order_require() {
	_require_root
	_require_program fio
	_require_program awk
	_require_fio_engine libaio
	_require_null_blk
	_require_trace_event block/block_rq_issue
}

# _order_setup SCHED -- a null_blk (merging off) under SCHED as
#   BB_ORDER_DEV; BB_ORDER_JOBS jobs, BB_ORDER_EXPECTED requests a round.
#   Skips without SCHED or with fewer than 2 CPUs.
_order_setup() {
	local sched=$1 ncpu nr_req

	BB_ORDER_DEV=bb_$TID
	_nullb_create "$BB_ORDER_DEV" || _skip "cannot create a null_blk device"
	_require_sched "$BB_ORDER_DEV" "$sched" || _skip "$sched is not available"
	_set_sched "$BB_ORDER_DEV" "$sched" || _fail "cannot select $sched"
	echo 2 > "/sys/block/$BB_ORDER_DEV/queue/nomerges" ||
		_fail "cannot disable merging"

	ncpu=$(nproc)
	[ "$ncpu" -ge 2 ] || _skip "needs at least 2 CPUs for concurrent dispatch"
	BB_ORDER_JOBS=$((ncpu < 4 ? ncpu : 4))
	nr_req=$(cat "/sys/block/$BB_ORDER_DEV/queue/nr_requests")
	if [ $((BB_ORDER_JOBS * BB_ORDER_DEPTH)) -gt "$nr_req" ]; then
		_fail "nr_requests $nr_req < $BB_ORDER_JOBS jobs x $BB_ORDER_DEPTH:" \
		      "bursts would wait for scheduler tags"
	fi
	BB_ORDER_EXPECTED=$((BB_ORDER_JOBS * BB_ORDER_REGION_MB * 1024 * 1024 / BB_ORDER_BS))
}

# _order_filter_issue -- block:block_rq_issue traced for BB_ORDER_DEV only
#   (until _order_trace_restore)
_order_filter_issue() {
	local devt

	devt=$(_devt "$BB_ORDER_DEV") ||
		{ _fail "cannot read the dev_t of $BB_ORDER_DEV"; return 1; }
	echo "dev == $devt" > "$BB_TRACEFS/events/block/block_rq_issue/filter" ||
		{ _fail "cannot set the block_rq_issue filter"; return 1; }
}

# _order_round EVENT... -- one round: the trace events EVENT... (paths under
#   events/: block/block_rq_issue, or a kprobe group) traced with the global
#   clock, so that events of different CPUs are in one order, while every
#   job writes its region once; the trace in $BB_TMP/trace, the events it
#   lost (ring buffer overruns) in BB_ORDER_LOST
_order_round() {
	local ev

	echo 0 > "$BB_TRACEFS/tracing_on"
	echo > "$BB_TRACEFS/trace"
	echo global > "$BB_TRACEFS/trace_clock" ||
		{ _fail "cannot select the global trace clock"; return 1; }
	for ev in "$@"; do
		echo 1 > "$BB_TRACEFS/events/$ev/enable" ||
			{ _fail "cannot enable the trace event $ev"; return 1; }
	done
	echo 1 > "$BB_TRACEFS/tracing_on"

	_watchdog_start "$BB_ORDER_DEV"
	fio --name=bb-order --filename="/dev/$BB_ORDER_DEV" --ioengine=libaio \
		--direct=1 --rw=write --bs=$BB_ORDER_BS --iodepth=$BB_ORDER_DEPTH \
		--iodepth_batch_submit=$BB_ORDER_DEPTH \
		--iodepth_batch_complete_min=$BB_ORDER_DEPTH \
		--iodepth_batch_complete_max=$BB_ORDER_DEPTH \
		--numjobs="$BB_ORDER_JOBS" --size=${BB_ORDER_REGION_MB}M \
		--offset_increment=${BB_ORDER_REGION_MB}M \
		--cpus_allowed="0-$((BB_ORDER_JOBS - 1))" --cpus_allowed_policy=split \
		--group_reporting > "$BB_TMP/fio.log" 2>&1 &
	_wait_pid $! || _fail_io "fio failed: $(tail -n 5 "$BB_TMP/fio.log")"
	_watchdog_stop

	echo 0 > "$BB_TRACEFS/tracing_on"
	for ev in "$@"; do
		echo 0 > "$BB_TRACEFS/events/$ev/enable"
	done
	cat "$BB_TRACEFS/trace" > "$BB_TMP/trace"
	BB_ORDER_LOST=$(_trace_lost)
	echo > "$BB_TRACEFS/trace"
}

# _order_trace_restore -- the trace clock and buffer size as before
#   _order_rounds, no block_rq_issue filter (also for an EXIT trap)
_order_trace_restore() {
	echo 0 > "$BB_TRACEFS/tracing_on"
	echo 0 > "$BB_TRACEFS/events/block/block_rq_issue/filter" 2>/dev/null
	[ -z "${BB_ORDER_CLOCK:-}" ] ||
		echo "$BB_ORDER_CLOCK" > "$BB_TRACEFS/trace_clock" 2>/dev/null
	[ -z "${BB_ORDER_BUF_KB:-}" ] ||
		echo "$BB_ORDER_BUF_KB" > "$BB_TRACEFS/buffer_size_kb"
	echo > "$BB_TRACEFS/trace"
}

# _order_rounds CHECK EVENT... -- up to RUNS rounds (default 5) of
#   _order_round EVENT..., each followed by CHECK ROUND, which judges
#   $BB_TMP/trace (failing the test with _fail) and returns 0 when the round
#   showed what the test needs, 1 to try another.  How often the CPUs'
#   queue runs overlap depends on the host (under a loaded host one round
#   saw no request dispatched by another CPU), hence rounds, bounded by
#   count.  Stops at a failure or stall.  Returns 0 when a round was
#   enough; BB_ORDER_ROUNDS is the number of rounds run.
_order_rounds() {
	local check=$1 enough=1

	shift
	# "[local] global ...": the clock in use
	BB_ORDER_CLOCK=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$BB_TRACEFS/trace_clock")
	BB_ORDER_BUF_KB=$(_trace_buf_kb)
	echo 8192 > "$BB_TRACEFS/buffer_size_kb"
	BB_ORDER_ROUNDS=0
	while [ "$BB_ERR" -eq 0 ] && [ "$BB_ORDER_ROUNDS" -lt "${RUNS:-5}" ] &&
	      ! _stalled; do
		BB_ORDER_ROUNDS=$((BB_ORDER_ROUNDS + 1))
		_order_round "$@" || break
		[ "$BB_ERR" -eq 0 ] || break
		"$check" "$BB_ORDER_ROUNDS" && { enough=0; break; }
	done
	_order_trace_restore
	return $enough
}
