#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Dispatch budgets and host tags through a SCSI disk: no budget, tag or
# request may leak (null_blk has no ->get_budget(), SCSI has one).
# Device: one 64 MiB scsi_debug disk (_sdebug_create) with max_queue=8 host
# tags, a 1-jiffy command delay and queue_depth 2, every 16th command
# answered SCSI_MLQUEUE_HOST_BUSY; fio (io_uring, write + crc32c verify).
# Through mq-deadline and bfq:
#  - the budget really ran out: device_busy was seen at queue_depth while
#    fio ran (checked for mq-deadline only);
#  - once idle, device_busy and host_busy are 0, every tag and sched tag
#    in debugfs is back, the dispatch and software-queue lists are empty
#    and inflight is "0 0" (_check_idle).
# Then, through mq-deadline, a real-time reader and a best-effort writer:
# the budget taken for a dispatch that mq-deadline answers with nothing (a
# higher-priority request pending) must go back.  A leaked budget leaves
# device_busy above 0 at idle, or stops the disk: the watchdog reports a
# stall.  Skips when the scsi_debug disk cannot be created.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

bb_qd=2

_require_root
_require_program fio
_require_fio_engine io_uring
_require_debugfs
_sdebug_create dev_size_mb=64 max_queue=8 delay=1 || _skip "$BB_SDEBUG_WHY"
dev=$BB_SDEBUG_DEV

_prep_test "budgets and host tags of a scsi_debug disk ($dev), queue_depth $bb_qd"

echo $bb_qd > "/sys/block/$dev/device/queue_depth" ||
	_fail "cannot set queue_depth $bb_qd"
qd=$(cat "/sys/block/$dev/device/queue_depth")
[ "$qd" = $bb_qd ] || _fail "queue_depth is $qd, not $bb_qd"
# The driver attributes, not the module parameters: every_nth_store() also
# turns on the statistics that the injection depends on.
sd=/sys/bus/pseudo/drivers/scsi_debug
echo $((0x8000)) > "$sd/opts" && echo 16 > "$sd/every_nth" ||
	_fail "cannot make scsi_debug answer every 16th command with HOST_BUSY"
[ "$(cat /sys/module/scsi_debug/parameters/statistics)" = Y ] ||
	_fail "scsi_debug statistics are off: no HOST_BUSY would be injected"

tested=0
for sched in mq-deadline bfq; do
	[ "$BB_ERR" -eq 0 ] || break
	_require_sched "$dev" "$sched" || continue
	_set_sched "$dev" "$sched" || { _fail "cannot select $sched"; continue; }
	peak=0
	_watchdog_start "$dev"
	_fio_verify "$dev" io_uring --size=4M --offset_increment=4M &
	pid=$!
	while kill -0 $pid 2>/dev/null && ! _stalled; do
		b=$(cat "/sys/block/$dev/device/device_busy")
		[ "$b" -gt "$peak" ] && peak=$b
		sleep 0.2
	done
	_wait_pid $pid || _fail_io "$sched: fio write+verify failed"
	_watchdog_stop
	_stalled && break
	_log "$sched: peak device_busy $peak of queue_depth $qd"
	# Not for bfq, which may keep a single request in the driver while
	# it idles on a queue.
	[ "$peak" -ge "$qd" ] || [ "$sched" = bfq ] ||
		_fail "$sched: device_busy never reached queue_depth $qd: budgets not exhausted"
	_check_idle "$sched" "$dev"
	tested=$((tested + 1))
done

# mq-deadline: ->dispatch_request() returns nothing with a budget taken
if [ "$BB_ERR" -eq 0 ] && ! _stalled && _require_sched "$dev" mq-deadline &&
   _set_sched "$dev" mq-deadline; then
	_watchdog_start "$dev"
	fio --filename="/dev/$dev" --direct=1 --bs=4k --size=2M \
		--name=bb-rt --ioengine=psync --rw=read --prioclass=1 \
		--name=bb-be --ioengine=io_uring --iodepth=4 --rw=write \
		--prioclass=2 --offset=16M > "$BB_TMP/fio-prio.log" 2>&1 &
	_wait_pid $! || _fail_io "mq-deadline: RT reader + BE writer failed:" \
		"$(tail -n 3 "$BB_TMP/fio-prio.log")"
	_watchdog_stop
	if ! _stalled; then
		_log "mq-deadline: RT reader and BE writer" \
			"(dispatch finds the BE requests held back)"
		_check_idle "mq-deadline priorities" "$dev"
	fi
fi

_skip_if_untested $tested "neither mq-deadline nor bfq could be tested"
_show_result
