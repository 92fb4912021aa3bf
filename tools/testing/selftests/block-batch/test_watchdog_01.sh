#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The suite's stall watchdog (_watchdog_start in test_common.sh) tells a
# hang from slowness by progress, not by wall time.  Checked on a null_blk
# with the watchdog's stall window shortened to STALL seconds:
#
#   slow   each request takes 1 s: the run takes several stall windows but
#          completes a request every second, so no stall may be reported;
#   stuck  fio writes to a dm-multipath device over a fast null_blk, and
#          the dm device is suspended: its queue is quiesced, and fio's
#          requests wait on it, accounted in flight, with their driver
#          tags.  Nothing completes for the window while requests are in
#          flight, so the watchdog must report "stalled", stop fio, and dump
#          the evidence: the device's stat and its busy tags in debugfs.
#          The device is resumed afterwards and every request completes.
#
# A watchdog that never fires, or fires on a slow device, fails here.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

STALL=${STALL:-8}

_require_root
_require_program fio
_require_fio_engine io_uring
_require_null_blk
_require_debugfs

_prep_test "stall watchdog: a slow device is not a hang, a stuck one is"

# _wd_dev NAME NSEC -- one tag, requests complete after NSEC ns
_wd_dev() {
	_nullb_create "$1" memory_backed=0 submit_queues=1 hw_queue_depth=1 \
		irqmode=2 completion_nsec="$2" &&
	_set_sched "$1" none
}

# _wd_fio DEV NR -- NR 4k writes, one at a time
_wd_fio() {
	fio --name=bb-watchdog --filename="/dev/$1" --ioengine=io_uring \
		--direct=1 --rw=write --bs=4k --iodepth=1 --number_ios="$2" \
		--size=1M > "$BB_TMP/fio.log" 2>&1 &
	_wait_pid $!
}

# slow: 3 stall windows' worth of 1 s requests
dev=bb_${TID}_slow
_wd_dev "$dev" 1000000000 || _skip "cannot set up a slow null_blk device"
n=$((3 * STALL))
done0=$(_completed "$dev")
# the window starts once fio's first request completed, not at its start-up
_wd_fio "$dev" "$n" &
wpid=$!
for _ in $(seq 600); do
	[ "$(_completed "$dev")" -gt "$done0" ] && break
	sleep 0.1
done
BB_STALL_SECS=$STALL BB_PROGRESS_SECS=$STALL _watchdog_start "$dev"
_wait_pid $wpid || _fail_io "slow: fio failed: $(tail -n 3 "$BB_TMP/fio.log")"
_watchdog_stop
done1=$(_completed "$dev")
_log "slow: $((done1 - done0)) requests of 1 s each, stall window $STALL s"
if _stalled; then
	_fail "slow: a slow but progressing device was reported as stalled:" \
	      "$(cat "$BB_TMP/stalled")"
	rm -f "$BB_TMP/stalled"
fi
[ $((done1 - done0)) -ge "$n" ] || _fail "slow: only $((done1 - done0)) of $n writes completed"

# stuck: requests queued on a quiesced queue, by suspending a dm-multipath
# device (over a fast null_blk) under fio; resumed once the verdict is in
if [ "$BB_ERR" -eq 0 ] && ! dm_why=$(_dm_multipath_why); then
	nb=bb_${TID}_path
	mp=bb_${TID}_mpath
	# not memory backed: request-based dm needs a path that does not
	# block (see test_quiesce_03)
	if _nullb_create "$nb" memory_backed=0 && _mpath_create "$mp" "$nb"; then
		dm=$BB_DM_DEV
		# no scheduler: a queued request holds a driver tag
		_set_sched "$dm" none || _fail "stuck: cannot select none on $dm"
		fio --name=bb-watchdog --filename="/dev/$dm" --ioengine=io_uring \
			--direct=1 --rw=randwrite --bs=4k --iodepth=4 \
			--number_ios=100000 --size=16M > "$BB_TMP/fio.log" 2>&1 &
		pid=$!
		# suspend once I/O flows: requests queue on the quiesced queue
		for _ in $(seq 100); do
			[ "$(_completed "$dm")" -gt 100 ] && break
			sleep 0.1
		done
		_dmsetup suspend --nolockfs "$mp" || _fail "stuck: cannot suspend $mp"
		BB_STALL_SECS=$STALL BB_PROGRESS_SECS=$STALL _watchdog_start "$dm"
		_wait_pid $pid && _fail "stuck: fio finished: the watchdog did not stop it"
		_watchdog_stop
		if ! _stalled; then
			_fail "stuck: no stall reported (fio: $(tail -n 3 "$BB_TMP/fio.log"))"
		else
			why=$(cat "$BB_TMP/stalled")
			_log "stuck: the watchdog said: $why"
			case $why in
			"no I/O completed on $dm for "*" with "*" requests in flight") ;;
			*) _fail "stuck: unexpected stall report: $why" ;;
			esac
			busy=$(grep -A2 "^== $dm/hctx0/tags:" "$BB_TMP/stall.txt" |
			       sed -n 's/^busy=//p' | head -n1)
			if ! grep -q "^== $dm: stat: " "$BB_TMP/stall.txt" ||
			   [ "${busy:-0}" -eq 0 ]; then
				sed 's/^/#   /' "$BB_TMP/stall.txt"
				_fail "stuck: the stall dump lacks the stat line or the busy tags"
			else
				_log "stuck: the dump shows $dm's stat and $busy busy tags"
			fi
			# Expected: the stall was the point.
			rm -f "$BB_TMP/stalled"
		fi
		_dmsetup resume "$mp" || _fail "stuck: cannot resume $mp"
		# the watchdog killed fio: it exits once its requests complete
		wait $pid
		[ $? -eq 137 ] || _fail "stuck: fio was not killed by the watchdog"
		for _ in $(seq 60); do
			[ "$(_inflight "$dm")" -eq 0 ] && break
			sleep 1
		done
		[ "$(_inflight "$dm")" -eq 0 ] ||
			_fail "stuck: requests still in flight 60 s after the resume"
	else
		_fail "stuck: cannot set up a dm-multipath device over null_blk"
	fi
elif [ "$BB_ERR" -eq 0 ]; then
	_skip_later "the stuck case needs dm-multipath: $dm_why"
fi

_show_result
