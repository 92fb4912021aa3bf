#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Driver tag exhaustion: no tag, budget or request may leak.
#
# blk-mq-sched dequeues a batch of requests from the elevator under one lock
# hold and stops when no driver tag is left; a request that got no tag goes
# back and must not keep a tag, a budget or an active-request count.
# Devices, through mq-deadline and bfq, completing from a timer (irqmode=2):
#  A. one null_blk with shared_tag_bitmap=1 and hw_queue_depth=2, 1 ms per
#     request: the busy tags must be seen at 2 under mq-deadline;
#  B. two null_blk with shared_tags=1, written at the same time (verified
#     only with null_blk.blocking=1, else mixed I/O without verify).
# fio (io_uring, iodepth far above the tag depth) writes and verifies.
# Fails when, once idle, a tag is not back: in debugfs every "busy=" of
# every hctx's tags and sched_tags must be 0, hctx "busy", "dispatch" and
# the software queues empty, hctx "active" 0, and /sys/block/DEV/inflight
# "0 0", and on a lockdep report: bfq's lock taken with interrupts on while
# its timer completions take it too.  Skips when null_blk lacks
# shared_tag_bitmap or shared_tags, or lockdep is not proving locking.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

BB_DBG=$BB_DEBUGFS
bb_timer=(irqmode=2 completion_nsec=50000)

_require_root
_require_program fio
_require_fio_engine io_uring
_require_null_blk
_require_debugfs
_require_lockdep

# _nullb_has_attr ATTR -- the configfs null_blk device has attribute ATTR
_nullb_has_attr() {
	grep -qw -- "$1" "$BB_NULLB_CFS/features" 2>/dev/null
}
_nullb_has_attr shared_tag_bitmap ||
	_skip "null_blk has no shared_tag_bitmap configfs attribute"
_nullb_has_attr shared_tags ||
	_skip "null_blk has no shared_tags configfs attribute"

# _nullb_param NAME DEFAULT -- a null_blk module parameter
_nullb_param() {
	cat "/sys/module/null_blk/parameters/$1" 2>/dev/null || echo "$2"
}

# _peak_busy DEV -- highest "busy=" of DEV's hctx0/tags seen so far
_peak_busy() {
	local v

	v=$(_busy_sum "$BB_DBG/$1/hctx0/tags")
	[ "${v:-0}" -gt "$(cat "$BB_TMP/peak.$1")" ] && echo "$v" > "$BB_TMP/peak.$1"
}

# _run_io SCHED VERIFY MB DEV... -- fio on every DEV at once, iodepth 32
#   per job, 4 jobs of MB MiB per device; VERIFY=1: write+verify, 0: mixed.
_run_io() {
	local sched=$1 verify=$2 mb=$3 dev pids=() i rc=0
	shift 3

	_watchdog_start "$@"
	for dev in "$@"; do
		echo 0 > "$BB_TMP/peak.$dev"
		if [ "$verify" = 1 ]; then
			_fio_verify "$dev" io_uring --iodepth=32 --size="${mb}M" \
				--offset_increment="${mb}M" &
		else
			fio --name=bb-tags --filename="/dev/$dev" \
				--ioengine=io_uring --direct=1 --rw=randrw \
				--bs=4k --iodepth=32 --numjobs=4 --size="${mb}M" \
				--offset_increment="${mb}M" --group_reporting \
				> "$BB_TMP/fio.$dev.log" 2>&1 &
		fi
		pids+=($!)
	done
	while kill -0 "${pids[@]}" 2>/dev/null && ! _stalled; do
		for dev in "$@"; do
			_peak_busy "$dev"
		done
		sleep 0.2
	done
	i=0
	for dev in "$@"; do
		if ! _wait_pid "${pids[$i]}"; then
			_stalled || tail -n 20 "$BB_TMP/fio.$dev.log" | sed 's/^/#   /'
			_fail_io "$sched: fio on $dev failed"
			rc=1
		else
			_log "$sched: $dev: fio ok, peak busy driver tags seen" \
			     "$(cat "$BB_TMP/peak.$dev")"
		fi
		i=$((i + 1))
	done
	_watchdog_stop
	return $rc
}

# _case NAME VERIFY MB DEV... -- both schedulers on DEVs; counts tested ones
_case() {
	local name=$1 verify=$2 mb=$3 sched dev
	shift 3

	for sched in mq-deadline bfq; do
		# a stalled queue must not be frozen (switching schedulers)
		_stalled && return
		_require_sched "$1" "$sched" || continue
		for dev in "$@"; do
			_set_sched "$dev" "$sched" ||
				{ _fail "$name: cannot select $sched on $dev"; continue 2; }
		done
		_run_io "$name: $sched" "$verify" "$mb" "$@" || continue
		# Case A oversubscribes 2 tags 64 times over: unless every
		# tag was seen busy, tag exhaustion was not tested.  Not for
		# bfq, which may keep a single request in the driver while it
		# idles on a queue (seen with a loaded host: peak 1).
		if [ "$name" = A ] && [ "$sched" = mq-deadline ] &&
		   [ "$(cat "$BB_TMP/peak.$1")" -lt "$nra" ]; then
			_fail "$name: $sched: peak busy tags" \
			      "$(cat "$BB_TMP/peak.$1") < $nra: the tags never ran out"
		fi
		_check_idle "$name: $sched" "$@"
		tested=$((tested + 1))
	done
}

_prep_test "driver tag exhaustion, shared tag bitmap and shared tag set"
tested=0

# Case A: all hw queues share 2 tags.
da=bb_${TID}_a
# 1 ms per request: both tags are held far longer than a dispatch takes,
# so that the sampled peak (every 0.2 s) sees them both busy.
_nullb_create "$da" shared_tag_bitmap=1 hw_queue_depth=2 irqmode=2 \
	completion_nsec=1000000 ||
	_skip "cannot create a null_blk device with shared_tag_bitmap=1"
nra=$(sed -n 's/^nr_tags=//p' "$BB_DBG/$da/hctx0/tags")
[ "$nra" = 2 ] || _fail "A: $da has nr_tags=$nra, expected 2"
grep -qw TAG_HCTX_SHARED "$BB_DBG/$da/hctx0/flags" ||
	_fail "A: $da hctx flags lack TAG_HCTX_SHARED: $(cat "$BB_DBG/$da/hctx0/flags")"
_log "A: $da: $(ls -d "$BB_DBG/$da"/hctx* | wc -l) hctxs share $nra tags"
_case A 1 4 "$da"
_stalled && _show_result
_nullb_destroy "$da"

# Case B: two devices share null_blk's global tag set.
if [ "$(_nullb_param blocking N)" = Y ]; then
	bverify=1 bmem=1
else
	bverify=0 bmem=0
	_log "B: null_blk.blocking is off: not memory backed, mixed I/O without verify"
fi
db1=bb_${TID}_b1
db2=bb_${TID}_b2
if _nullb_create "$db1" shared_tags=1 memory_backed=$bmem "${bb_timer[@]}" \
	submit_queues="$(_nullb_param submit_queues 1)" &&
   _nullb_create "$db2" shared_tags=1 memory_backed=$bmem "${bb_timer[@]}" \
	submit_queues="$(_nullb_param submit_queues 1)"; then
	nrb=$(sed -n 's/^nr_tags=//p' "$BB_DBG/$db1/hctx0/tags")
	_log "B: $db1 and $db2 share a tag set of $nrb tags per hw queue"
	for dev in "$db1" "$db2"; do
		grep -qw TAG_QUEUE_SHARED "$BB_DBG/$dev/hctx0/flags" ||
			_fail "B: $dev hctx flags lack TAG_QUEUE_SHARED:" \
			      "$(cat "$BB_DBG/$dev/hctx0/flags")"
	done
	_case B $bverify 8 "$db1" "$db2"
else
	# shared_tags is in null_blk's features: this must work.
	_fail "B: cannot create two null_blk devices with shared_tags=1"
fi

_skip_if_untested $tested "neither mq-deadline nor bfq could be tested"
_show_result
