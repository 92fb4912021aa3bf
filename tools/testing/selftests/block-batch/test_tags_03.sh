#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hardware queue that waits for a tag is restarted by a completion batch.
# A completion batch (blk_mq_end_request_batch()) now also ends requests
# that hold scheduler tags; it gives back their scheduler tags and driver
# tags in one go (blk_mq_flush_tag_batch()), which must wake the tasks
# sleeping for a scheduler tag and restart a hw queue marked
# SCHED_RESTART (blk_mq_sched_restart()): with unshared tags, a dispatch
# that finds no driver tag parks its requests on the hctx's dispatch list
# and waits for exactly that restart, and when every request completes by
# polling, only a completion batch can give it.
#
# Device: a null_blk that keeps no data, one submit and one poll queue,
# hw_queue_depth=2 (unshared tags) and nr_requests 4 (the least);
# fio (io_uring, --hipri: completions reaped by polling, in batches) with
# two jobs of iodepth 32, far above the scheduler tags: its submissions
# sleep for scheduler tags in io_uring's workers.  Through mq-deadline and
# bfq.  The block_rq_tag_wait event counts the waits for a scheduler tag
# of the device; kprobes count the completion batches, the SCHED_RESTART
# marks and the restarts (__blk_mq_sched_restart()) inside a batch.
# Fails when fio fails or stalls (the watchdog: a missed wakeup or restart
# strands requests with no completion to come), when SCHED_RESTART was set
# but no completion batch restarted the queue (a task that is about to
# sleep for a scheduler tag runs the queue too, which may hide a missed
# restart from the watchdog), or when a tag or scheduler tag is not back
# once idle (_check_idle).
# Skips when the device never ran out of scheduler tags or driver tags
# (no tag wait, no SCHED_RESTART), when polling made no completion batch,
# or when the kernel has no block_rq_tag_wait event (v7.3), no kprobe
# events or inlined a probed function.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

GROUP=bb_tags3
PROBES=(
	"batch blk_mq_end_request_batch"
	"r:batchret blk_mq_end_request_batch"
	"restart __blk_mq_sched_restart"
	"mark blk_mq_sched_mark_restart_hctx"
)
WAITEV=$BB_TRACEFS/events/block/block_rq_tag_wait

_require_polled_probes block/block_rq_tag_wait

# _trace_stop -- the tag wait event off and unfiltered, and the probes
#   gone (_probe_trace_stop); also on exit
_trace_stop() {
	echo 0 > "$WAITEV/enable"
	echo 0 > "$WAITEV/filter"
	_probe_trace_stop
}

_prep_test "restarts of a hw queue by completion batches, scheduler tags exhausted"

dev=bb_${TID}
# Not memory backed: the test needs no data back.
_nullb_create_polled "$dev" memory_backed=0 submit_queues=1 hw_queue_depth=2

scheds=
for sched in mq-deadline bfq; do
	_require_sched "$dev" "$sched" && scheds+=" $sched"
done
[ -n "$scheds" ] || _skip "neither mq-deadline nor bfq is available"

trap _trace_stop EXIT
_probe_trace_start 4096 "$GROUP" "${PROBES[@]}"
# waits for a scheduler tag of the device, recorded while the probes are
echo "dev == $(_devt "$dev") && is_sched_tag == 1" > "$WAITEV/filter" ||
	_skip "cannot filter block_rq_tag_wait by device and tag kind"
echo 1 > "$WAITEV/enable"

tested=0
for sched in $scheds; do
	[ "$BB_ERR" -eq 0 ] || break
	_set_sched "$dev" "$sched" || { _fail "cannot select $sched"; continue; }
	echo 4 > "/sys/block/$dev/queue/nr_requests" ||
		{ _fail "$sched: cannot set nr_requests 4"; continue; }
	nr=$(cat "/sys/block/$dev/queue/nr_requests")
	read -ra st0 < "/sys/block/$dev/stat"
	_probe_trace_on
	_watchdog_start "$dev"
	_fio_verify "$dev" io_uring --hipri --rw=randrw --numjobs=2 \
		--iodepth=32 --iodepth_batch_complete_min=4 --size=4M \
		--offset_increment=4M --verify=0 --do_verify=0 ||
		_fail_io "$sched: polled fio with scheduler tags exhausted failed"
	_watchdog_stop
	_probe_trace_off
	read -ra st1 < "/sys/block/$dev/stat"
	_stalled && break
	ios=$(( st1[0] + st1[4] - st0[0] - st0[4] ))
	lost=$(_trace_lost)
	# "TASK-PID [CPU] FLAGS TIME: EVENT: ...".  A restart between the
	# entry and the return of blk_mq_end_request_batch() in the same
	# task came from that batch.
	read -r nb nw nm nr_all nr_b < <(awk '
		/^#/ { next }
		{ pid = $1; sub(/.*-/, "", pid) }
		/ batch: / { open[pid] = 1; b++ }
		/ batchret: / { open[pid] = 0 }
		/ restart: / { r++; if (open[pid]) rb++ }
		/ mark: / { m++ }
		/ block_rq_tag_wait: / { w++ }
		END { print b + 0, w + 0, m + 0, r + 0, rb + 0 }' "$BB_TRACEFS/trace")
	_log "$sched: nr_requests $nr, $ios requests completed," \
	     "$nb completion batches, $nw waits for a scheduler tag," \
	     "$nm SCHED_RESTART marks, $nr_all restarts ($nr_b in a batch)," \
	     "$lost trace events lost"
	_check_idle "$sched" "$dev"
	if [ "$nb" -eq 0 ]; then
		_skip_later "$sched: polling made no completion batch"
	elif [ "$lost" -gt 0 ]; then
		_skip_later "$sched: the trace lost $lost events: restarts" \
			    "not counted"
	elif [ "$nm" -gt 0 ] && [ "$nr_b" -eq 0 ]; then
		_fail "$sched: SCHED_RESTART set $nm times, but no completion" \
		      "batch restarted the hw queue"
	elif [ "$nw" -eq 0 ] || [ "$nm" -eq 0 ]; then
		_skip_later "$sched: the device never ran out of scheduler" \
			    "tags ($nw waits) or driver tags ($nm" \
			    "SCHED_RESTART marks)"
	else
		tested=$((tested + 1))
	fi
done
_trace_stop

_skip_if_untested $tested "no scheduler ran out of tags with completion batches"
_show_result
