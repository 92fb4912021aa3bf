#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Request merging through mq-deadline and bfq.
#
# Batch dispatch must not cost merges: Jens Axboe's 2024 mq-deadline/bfq
# scalability series was dropped after a -72.9% write IOPS regression on an
# HDD, because requests left the scheduler's sorted lists (deferred inserts)
# and bios could no longer merge into them.  Here a null_blk that completes
# one request at a time, slowly (hw_queue_depth=1, a 5 ms timer completion),
# keeps requests waiting in the scheduler (nr_requests=128, so that each
# stream has requests there, not just the one that waits for the driver tag
# on hctx->dispatch) while two fio jobs write their own regions sequentially
# in 4k bios:
#
#   queued   io_uring, iodepth=64, one bio per submission: every merge is a
#            bio merge into a request that waits in the scheduler
#            (->bio_merge(), blk_mq_sched_try_merge())
#   plugged  io_uring, iodepth=64, 16 bios per submission: plug merges
#            within a submission, then scheduler merges across them
#
# While one request is at the device, the jobs have up to 128 bios
# outstanding, so nearly every bio is merged.  The test fails if fewer than
# half of the bios were merged, and prints one line per scheduler and case:
#   merge_01: sched=S case=C bios=B requests=R merged=M ratio=M/B
# which scripts/test.sh also compares against the base kernel in the same run
# (patched ratio >= base ratio).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

bb_scheds=${BB_MERGE_SCHEDULERS:-"mq-deadline bfq"}
bb_size_mb=8
bb_min_pct=50

_require_root
_require_program fio
_require_program awk
_require_fio_engine io_uring
_require_null_blk

_prep_test "bio merging under $bb_scheds with requests waiting in the scheduler"

dev=bb_$TID
_nullb_create "$dev" memory_backed=0 hw_queue_depth=1 irqmode=2 \
	completion_nsec=5000000 || _skip "cannot create a null_blk device"
stat=/sys/block/$dev/stat

# _merge_case SCHED CASE BATCH
_merge_case() {
	local sched=$1 case=$2 batch=$3 w0 m0 w1 m1 reqs merged bios pct

	read -r _ _ _ _ w0 m0 _ < "$stat"
	if ! fio --name=bb-merge --filename="/dev/$dev" --ioengine=io_uring \
		--direct=1 --rw=write --bs=4k --iodepth=64 \
		--iodepth_batch_submit="$batch" --numjobs=2 \
		--size=${bb_size_mb}M --offset_increment=${bb_size_mb}M \
		--group_reporting > "$BB_TMP/fio.log" 2>&1; then
		_fail "$sched $case: fio failed: $(tail -n 5 "$BB_TMP/fio.log")"
		return
	fi
	read -r _ _ _ _ w1 m1 _ < "$stat"
	reqs=$((w1 - w0))
	merged=$((m1 - m0))
	bios=$((reqs + merged))
	if [ "$bios" -ne $((2 * bb_size_mb * 256)) ]; then
		_fail "$sched $case: $bios bios accounted, $((2 * bb_size_mb * 256)) written"
		return
	fi
	pct=$((100 * merged / bios))
	_log "sched=$sched case=$case bios=$bios requests=$reqs merged=$merged" \
	     "ratio=$(awk -v m="$merged" -v b="$bios" 'BEGIN { printf "%.3f", m / b }')"
	[ "$pct" -ge $bb_min_pct ] ||
		_fail "$sched $case: only $pct% of the bios were merged (< $bb_min_pct%)"
}

ran=0
for sched in $bb_scheds; do
	if ! _sched_available "$dev" "$sched"; then
		_log "$sched: not built in, not tested"
		continue
	fi
	_set_sched "$dev" "$sched" || { _fail "cannot select $sched"; continue; }
	echo 128 > "/sys/block/$dev/queue/nr_requests" ||
		{ _fail "$sched: cannot set nr_requests"; continue; }
	_merge_case "$sched" queued 1
	_merge_case "$sched" plugged 16
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || [ "$BB_ERR" -ne 0 ] || _skip "no scheduler could be tested"

_show_result
