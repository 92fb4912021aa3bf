#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Quiesce/unquiesce a live queue at least 1000 times per scheduler (none,
# mq-deadline) while fio write+verify runs on a null_blk with several hw
# queues.  Each nr_requests or wbt_lat_usec write freezes and quiesces the
# queue, and its unquiesce must rerun every request inserted meanwhile: a
# stranded request hangs fio (caught by the runner's timeout and the hung
# task detector), a lost one fails verify.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

CYCLES=${CYCLES:-1000}

_require_root
_require_program fio
_require_fio_engine io_uring
_require_null_blk

_prep_test "$CYCLES quiesce cycles under fio verify, none and mq-deadline"

dev=bb_$TID
_nullb_create "$dev" submit_queues=4 hw_queue_depth=32 ||
	_skip "cannot create a null_blk device"
q=/sys/block/$dev/queue

# _quiesce_loop N -- N writes that each quiesce and unquiesce the queue
_quiesce_loop() {
	local i=0 nr

	nr=$(cat "$q/nr_requests")
	while [ $i -lt "$1" ]; do
		echo $((nr / 2)) > "$q/nr_requests" || return 1
		echo "$nr" > "$q/nr_requests" || return 1
		i=$((i + 2))
		if [ -w "$q/wbt_lat_usec" ]; then
			echo 1000 > "$q/wbt_lat_usec" || return 1
			echo 0 > "$q/wbt_lat_usec" || return 1
			i=$((i + 2))
		fi
	done
	echo $i > "$BB_TMP/cycles"
}

for sched in none mq-deadline; do
	_sched_available "$dev" "$sched" || { _log "$sched: not built in"; continue; }
	_set_sched "$dev" "$sched" || { _fail "cannot select $sched"; continue; }
	rm -f "$BB_TMP/cycles"
	_quiesce_loop "$CYCLES" &
	loop_pid=$!
	_verify_while $loop_pid "$dev" ||
		_fail "$sched: fio verify failed during quiesce cycles"
	wait $loop_pid || _fail "$sched: a quiescing sysfs write failed"
	cycles=$(cat "$BB_TMP/cycles" 2>/dev/null || echo 0)
	_log "$sched: $cycles quiesce cycles during $BB_RUNS fio verify runs"
	[ "$cycles" -ge "$CYCLES" ] || _fail "$sched: only $cycles quiesce cycles"
done

_show_result
