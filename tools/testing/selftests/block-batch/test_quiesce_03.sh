#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Request-based device-mapper suspend/resume under fio writes, none
# and mq-deadline on the dm device: quiesce and unquiesce of a live blk-mq
# queue, not frozen around them.  The dm device is a dm-multipath table
# with one path, a null_blk; request-based dm has a blk-mq queue of its own
# (one hw queue by default, drivers/md/dm-rq.c) whose scheduler can be
# switched.
#
# A cycle is "dmsetup suspend --nolockfs", then "dmsetup resume"
# (drivers/md/dm.c, dm-mpath.c):
#  - __dm_suspend(): multipath_presuspend() clears queue_if_no_path (not
#    set here), which kicks two asynchronous runs of the dm queue
#    (dm_table_run_md_queue_async() and the requeue work); then
#    DMF_BLOCK_IO_FOR_SUSPEND is set (dm_mq_queue_rq() answers
#    BLK_STS_RESOURCE from then on), dm_stop_queue() quiesces the dm queue
#    with blk_mq_quiesce_queue(), and only then dm_wait_for_completion()
#    polls until no request of the dm queue is started: those already
#    dispatched to the path complete, the others stay queued.
#    Without --nolockfs, lock_fs() would add bdev_freeze(), which with no
#    filesystem on the device (no holder with ->freeze) is sync_blockdev():
#    nothing to write, fio uses O_DIRECT, and no queue is frozen.
#    --noflush is not given: here it would only skip those two runs; it
#    matters with queue_if_no_path or failed paths, which this table lacks.
#  - until the resume, fio keeps submitting up to its queue depth:
#    blk_queue_enter() does not block, requests are inserted (mq-deadline,
#    a software queue or hctx->dispatch) and blk_mq_run_hw_queue() finds
#    the queue quiesced: the path that pairs with blk_mq_unquiesce_queue()
#    (smp_mb(), then the re-check).
#  - __dm_resume(): DMF_BLOCK_IO_FOR_SUSPEND is cleared, then
#    dm_start_queue(): blk_mq_unquiesce_queue(), whose queue run can race
#    with a submitter inserting, then blk_mq_kick_requeue_list(), whose
#    work (blk_mq_requeue_work()) runs every hw queue again.
#
# What fails: a request that no run dispatches after the resume (the queue
# left quiesced, or the request missed by both runs) stays queued.  Any
# later run of the unquiesced queue dispatches it, and every cycle has
# some, so it hangs only if nothing runs the queue after it (after the
# last resume of a loop, or always if the queue stays quiesced): fio waits
# for it and the watchdog reports a stall.  A write that completes with an
# error fails fio (there is no data verify: see the path device below); a
# WARN (an unbalanced unquiesce) fails the dmesg check.  Not caught here: a
# request missed only by the run in blk_mq_unquiesce_queue(), whether that
# run is missing or loses the store-buffering race that the smp_mb() in blk_mq_run_hw_queue() closes
# (Documentation/litmus-tests/block/), since the requeue work runs the
# queue right after it; and a dispatch past the quiesce (dm_mq_queue_rq()
# bounces it with BLK_STS_RESOURCE, or dm_wait_for_completion() waits for
# it).
#
# Bounded: at most CYCLES cycles or BB_STRESS_SECS seconds per scheduler,
# whichever comes first; fewer than MIN_CYCLES is a SKIP (machine too slow;
# 5: a 60 s loop did 12 and 13 cycles with two CPU hogs on a 2-core host).
# A cycle "started with requests in flight" when /sys/block/DM/stat counted
# requests in flight (waiting up to 2 s for some) just before the suspend;
# none such is a failure (fio was not running: nothing was tested).  So is
# a loop in which no resume found requests waiting: counted in flight after
# the suspend returned, when dm_wait_for_completion() has seen no started
# request, so accounted and not yet dispatched.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

CYCLES=${CYCLES:-300}
MIN_CYCLES=${MIN_CYCLES:-5}

_require_root
_require_program fio
_require_fio_engine io_uring
_require_null_blk
_require_dm_multipath

_prep_test "up to $CYCLES dm suspend/resume cycles under fio writes, none and mq-deadline"

nb=bb_$TID		# the null_blk: the one path
mp=bb_${TID}_mpath	# the dm device's name

# Not memory backed: a memory-backed null_blk is BLK_MQ_F_BLOCKING, and
# request-based dm issues its clones from a non-blocking dispatch context
# (blk_insert_cloned_request() inside the dm queue's RCU read section), a
# "sleeping function called from invalid context" in v7.3 that the
# scheduler lock changes do not change.  So fio writes without verify: a
# lost request shows as a stall, not as bad data.
_nullb_create "$nb" memory_backed=0 submit_queues=2 hw_queue_depth=32 ||
	_skip "cannot create a null_blk device"
_mpath_create "$mp" "$nb" || _skip "cannot create a dm-multipath device on $nb"
dmdev=$BB_DM_DEV
_log "$mp is $dmdev: $(dmsetup table "$mp")"

# _suspend_loop NAME -- suspend and resume the dm device until the stress
# bounds say stop; writes to $BB_TMP/waiting.NAME how many resumes found
# requests waiting on the quiesced queue
_suspend_loop() {
	local waiting=0

	_stress_begin "$1" "$CYCLES"
	while _stress_continue; do
		_stress_step "$(_inflight_soon "$dmdev")"
		_dmsetup suspend --nolockfs "$mp" || return 1
		# suspended: no request is started, those counted are waiting
		[ "$(_inflight "$dmdev")" -gt 0 ] && waiting=$((waiting + 1))
		_dmsetup resume "$mp" || return 1
	done
	_stress_end
	echo "$waiting" > "$BB_TMP/waiting.$1"
}

ran=0
_watchdog_start "$dmdev" "$nb"
for sched in none mq-deadline; do
	_require_sched "$dmdev" "$sched" || continue
	_set_sched "$dmdev" "$sched" || { _fail "cannot select $sched on $dmdev"; continue; }
	_stress_spawn "suspend-$sched" _suspend_loop "suspend-$sched"
	_verify_while "suspend-$sched" "$BB_STRESS_PID" "$dmdev" \
		--verify=0 --do_verify=0 || break
	_log "$sched: $BB_RUNS fio runs"
	_stress_verdict "$sched" "$MIN_CYCLES" inflight || continue
	read -r waiting 2>/dev/null < "$BB_TMP/waiting.suspend-$sched" || waiting=0
	_log "$sched: $waiting of $BB_CYCLES resumes found requests waiting" \
	     "on the quiesced queue"
	if [ "$waiting" -eq 0 ]; then
		_fail "$sched: no resume found requests waiting on the quiesced queue"
		continue
	fi
	ran=$((ran + 1))
done
_watchdog_stop
_skip_if_untested $ran "neither none nor mq-deadline could be tested"

_show_result
