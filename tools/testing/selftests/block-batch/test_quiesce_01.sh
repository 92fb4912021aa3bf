#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Quiesce/unquiesce behind a queue freeze, none and mq-deadline, while fio
# write+verify runs on a null_blk with several hw queues.  Each nr_requests
# write freezes the queue (blk_mq_freeze_queue(): it waits until every
# request in flight has completed), quiesces and unquiesces it, and
# unfreezes it; wbt_lat_usec does the same.  While the queue is frozen new
# submitters wait in blk_queue_enter(), so this is NOT the live-queue race
# of submit vs. unquiesce (test_quiesce_02, NVMe resets, and test_quiesce_03,
# dm-multipath suspend, quiesce live queues).  It checks that freeze,
# quiesce and unquiesce with I/O queued up behind them lose nothing: a
# stranded request is reported as a stall by the watchdog, a lost one fails
# verify.
#
# Bounded: at most CYCLES cycles or BB_STRESS_SECS seconds per scheduler,
# whichever comes first; fewer than MIN_CYCLES is a SKIP (machine too slow).
# A cycle "started with requests in flight" when /sys/block/DEV/stat counted
# requests in flight (waiting up to 2 s for some: _inflight_soon) just
# before the write that froze the queue; none such is a failure (fio was not
# running: nothing was tested).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

CYCLES=${CYCLES:-1000}
MIN_CYCLES=${MIN_CYCLES:-10}

_require_root
_require_program fio
_require_fio_engine io_uring
_require_null_blk

_prep_test "up to $CYCLES freeze+quiesce cycles under fio verify, none and mq-deadline"

dev=bb_$TID
_nullb_create "$dev" submit_queues=4 hw_queue_depth=32 ||
	_skip "cannot create a null_blk device"
q=/sys/block/$dev/queue

# _quiesce_loop NAME -- sysfs writes that each freeze, quiesce, unquiesce
# and unfreeze the queue, until the stress bounds say stop
_quiesce_loop() {
	local nr writes i=0

	nr=$(cat "$q/nr_requests")
	writes=("nr_requests $((nr / 2))" "nr_requests $nr")
	[ -w "$q/wbt_lat_usec" ] && writes+=("wbt_lat_usec 1000" "wbt_lat_usec 0")
	_stress_begin "$1" "$CYCLES"
	while _stress_continue; do
		set -- ${writes[$i]}
		_stress_step "$(_inflight_soon "$dev")"
		echo "$2" > "$q/$1" || return 1
		i=$(((i + 1) % ${#writes[@]}))
	done
	# leave nr_requests as it was
	echo "$nr" > "$q/nr_requests"
	_stress_end
}

ran=0
_watchdog_start "$dev"
for sched in none mq-deadline; do
	_require_sched "$dev" "$sched" || continue
	_set_sched "$dev" "$sched" || { _fail "cannot select $sched"; continue; }
	_stress_spawn "quiesce-$sched" _quiesce_loop "quiesce-$sched"
	_verify_while "quiesce-$sched" "$BB_STRESS_PID" "$dev" || break
	_log "$sched: $BB_RUNS fio verify runs"
	_stress_verdict "$sched" "$MIN_CYCLES" inflight && ran=$((ran + 1))
done
_watchdog_stop
_skip_if_untested $ran "neither none nor mq-deadline could be tested"

_show_result
