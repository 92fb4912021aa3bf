#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Merges at insertion: a request that mq-deadline or bfq merges into a
# waiting one as it is inserted (blk_mq_sched_try_insert_merge()) is
# freed after the scheduler lock is dropped, from the insertion's free
# list: freeing it runs the elevator's ->finish_request(), which takes
# that lock under bfq.
# fio replays writes of 4k blocks, 32 a submit through io_uring, to a
# null_blk with one tag and 5 ms completions, so that requests wait: in
# each window of 32 blocks, the even blocks first, then the odd ones.  No
# bio of a submit can merge: a plug merges a bio only into its last
# request, and the window's even blocks reach the scheduler only when the
# plug is flushed.  Then each odd block's request, inserted after the
# even ones, merges into the request of the block before it.
# A kretprobe on elv_attempt_insert_merge() (in elevator.c, called
# from blk-mq-sched.c: not inlined) counts the insertions that merged in
# fio's tasks.
# Fails on a kernel splat (lockdep: the scheduler lock taken again while
# held) or a stall, and when fio's writes fail.  Skips without lockdep
# (the check), kprobes, mq-deadline or bfq, when the kretprobe missed
# returns, and when no request was merged at insertion.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

# whole windows of 32 blocks
WRITES=$(( (${WRITES:-2048} + 31) / 32 * 32 ))
GROUP=bb_merge_03
PROBE='r:insmerge elv_attempt_insert_merge merged=$retval:u8'

_require_root
_require_program fio
_require_program awk
_require_fio_engine io_uring
_require_null_blk
_require_lockdep
_require_tracefs
_require_kprobes

_prep_test "requests merged at insertion, freed after the scheduler lock"

dev=bb_$TID
_nullb_create "$dev" memory_backed=0 submit_queues=1 hw_queue_depth=1 \
	irqmode=2 completion_nsec=5000000 ||
	_skip "cannot create a null_blk device"
for s in mq-deadline bfq; do
	_require_sched "$dev" "$s" || _skip "$s is not available"
done

trap _probe_trace_stop EXIT
_probe_trace_start 1024 "$GROUP" "$PROBE"

# fio's iolog (version 2): per window of 32 blocks, evens then odds
awk -v f="/dev/$dev" -v n="$WRITES" 'BEGIN {
	print "fio version 2 iolog"; print f " add"; print f " open"
	for (w = 0; w < n / 32; w++)
		for (i = 0; i < 32; i++) {
			b = w * 32 + (i < 16 ? 2 * i : 2 * (i - 16) + 1)
			print f " write " b * 4096 " 4096"
		}
	print f " close"
}' > "$BB_TMP/iolog"

_watchdog_start "$dev"
for s in mq-deadline bfq; do
	_set_sched "$dev" "$s" || { _fail "cannot select $s on $dev"; continue; }
	echo 128 > "/sys/block/$dev/queue/nr_requests" ||
		_fail "cannot set nr_requests on $dev"
	_probe_trace_on
	fio --name=insmerge --ioengine=io_uring --direct=1 \
		--read_iolog="$BB_TMP/iolog" --replay_no_stall=1 \
		--iodepth=32 --iodepth_batch_submit=32 \
		--iodepth_batch_complete_min=32 \
		> "$BB_TMP/fio.$s.log" 2>&1 &
	_wait_pid $!
	_fio_ok $? "$BB_TMP/fio.$s.log" || _fail_io "fio on $dev under $s"
	_probe_trace_off
	lost=$(_trace_lost)
	# fio's insertions (plug flushes in its tasks), not another disk's
	merges=$(awk '$1 ~ /^(fio|iou-wrk)-/ && / insmerge: .* merged=1$/ { n++ }
		      END { print n + 0 }' "$BB_TRACEFS/trace")
	_log "$s: $merges requests merged at insertion for $WRITES writes" \
	     "(at most $((WRITES / 2)))"
	[ "$lost" -eq 0 ] || _skip_later "$s: the trace lost $lost events"
	[ "$merges" -gt 0 ] ||
		_skip_later "$s: no request was merged at insertion"
done
_watchdog_stop
missed=$(_kprobe_misses "$GROUP" insmerge)
[ "$missed" -eq 0 ] ||
	_skip_later "the kretprobe missed $missed returns: merges not counted"

_show_result
