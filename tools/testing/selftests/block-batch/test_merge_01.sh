#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Request merging through mq-deadline and bfq.
#
# Batch dispatch must not cost merges: Jens Axboe's 2024 mq-deadline/bfq
# scalability series was dropped after a -72.9% write IOPS regression on an
# HDD, because requests left the scheduler's sorted lists (deferred inserts)
# and bios could no longer merge into them.  Here fio jobs write their own
# regions sequentially in 4k bios (io_uring, direct=1) while a slow null_blk
# keeps requests waiting in the scheduler.  Two null_blk devices, both with
# memory_backed=0 and 4k blocks:
#
# bb_merge_01 completes one request at a time, slowly (hw_queue_depth=1, a
# 5 ms timer completion), with nr_requests=128 (so that each stream has
# requests there, not just the one that waits for the driver tag on
# hctx->dispatch); two jobs of 8 MiB each, iodepth=64:
#
#   queued   one bio per submission: every merge is a bio merge into a
#            request that waits in the scheduler (->bio_merge(),
#            blk_mq_sched_try_merge())
#   plugged  16 bios per submission: plug merges within a submission, then
#            scheduler merges across them
#
# While one request is at the device, the jobs have up to 128 bios
# outstanding, so nearly every bio is merged: these two cases fail if fewer
# than half of the bios were merged.  With one driver tag, though, a
# dispatch run sends at most one request to the device (and parks at most
# one more on hctx->dispatch), so batch dispatch cannot take more requests
# out of the scheduler early here.
#
# bb_merge_01_hdd is HDD-like: rotational=1, submit_queues=1,
# hw_queue_depth=32 (NCQ), a 100 ms timer completion, and nr_requests left
# at the default that selecting a scheduler sets (twice the tag depth: 64),
# since that default is what a disk gets and part of what is compared.  One
# case, after the kernel test robot's fio-basic 1HDD sequential 4k write
# job, scaled down:
#
#   hdd      eight jobs of 1 MiB each, iodepth=32, one bio per submission
#            (fio's default)
#
# The device completes up to 32 requests per 100 ms whatever their size: like
# a disk, it pays per request, so its IOPS follow the merges.  With 256 bios
# outstanding against 32 tags, requests wait in the scheduler while the tags
# are busy, and one dispatch run may dequeue as many requests as there are
# free tags (up to 32; one while hctx->dispatch_busy is set), which is where
# requests taken out of the sorted lists early would cost merges.  100 ms,
# not a disk's few ms: a TCG guest submits far fewer bios per second than a
# real machine, and at 2 ms (up to 16000 requests per second) it would
# hardly keep 32 requests at the device, so requests would rarely wait and
# the ratio would follow the host's load.
#
# The same job runs on a second HDD stand-in, a scsi_debug disk
# (_sdebug_create): max_queue=32 host tags, a 100 ms command delay
# (ndelay), queue/rotational set to 1, so with SCSI's dispatch budgets
# (queue_depth) on the path:
#
#   sd-hdd   as hdd, on the scsi_debug disk
#
# No minimum merge percentage for hdd and sd-hdd: while a tag is free, a new
# request can leave the scheduler as soon as the queue runs, so the share of
# bios that find a request still waiting depends on how soon the guest
# resubmits after completions, and how soon the queue runs, compared with
# the 100 ms: on the guest's speed (a KCSAN or PREEMPT_RT guest is much
# slower) and the host's load.  A floor there would be a timing threshold.
# The check is the comparison with the base kernel (below, for queued and
# plugged; hdd and sd-hdd are reported); in the guest, every case checks
# that each bio written was accounted, as a request or as a merge.
#
# Which path merged: the disk's merge count also counts requests merged
# into each other when they are inserted (blk_mq_sched_try_insert_merge()),
# and those make up for most of the bio merges when the scheduler's
# ->bio_merge() merges nothing (each bio then costs a request of its own,
# merged away at insertion): the ratio alone dropped only from 0.95 to
# 0.94 with mq-deadline's ->bio_merge() disabled.  So the bio merges are
# counted too, with the block:block_bio_backmerge and
# block:block_bio_frontmerge events (every merge of a bio into a request,
# in a plug or in the scheduler; whole-request merges are block_rq_merge).
# In the queued case a submission holds one bio, so nothing merges in the
# plug and these count ->bio_merge()'s merges: at least bb_min_pct% of the
# bios there too.  This is what fails if the scheduler lock is skipped
# while requests wait in the merge hash (elv_rqhash_empty()).
#
# Output: one line per scheduler and case, and fio's write IOPS for hdd and
# sd-hdd (reported, never checked), besides the HDD-like devices'
# nr_requests:
#   merge_01: sched=S case=C bios=B requests=R merged=M ratio=M/B bio_merges=N
#   merge_01: sched=S case=hdd|sd-hdd iops=N
# A test harness can boot the base kernel in the same run with this
# same test, checks the queued and plugged ratios against the base's
# for the same scheduler and case (series >= base - BB_MERGE_SLACK), and
# reports the hdd and sd-hdd ratios and IOPS series/base.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

bb_scheds=${BB_MERGE_SCHEDULERS:-"mq-deadline bfq"}
bb_size_mb=8
bb_min_pct=50
bb_hdd_jobs=8
bb_hdd_mb=1

_require_root
_require_program fio
_require_program awk
_require_fio_engine io_uring
_require_null_blk
_require_trace_event block/block_bio_backmerge
_require_trace_event block/block_bio_frontmerge

bb_events="block_bio_backmerge block_bio_frontmerge"
# _bio_merge_trace on DEV | off -- trace DEV's bio merge events, or stop
_bio_merge_trace() {
	local e devt

	echo 0 > "$BB_TRACEFS/tracing_on"
	for e in $bb_events; do
		echo 0 > "$BB_TRACEFS/events/block/$e/enable"
		echo 0 > "$BB_TRACEFS/events/block/$e/filter"
	done
	[ "$1" = on ] || return 0
	echo > "$BB_TRACEFS/trace"
	devt=$(_devt "$2") || return 1
	for e in $bb_events; do
		echo "dev == $devt" > "$BB_TRACEFS/events/block/$e/filter" &&
			echo 1 > "$BB_TRACEFS/events/block/$e/enable" || return 1
	done
	echo 1 > "$BB_TRACEFS/tracing_on"
}

# _bio_merges -- the bio merge events traced, or nothing if events were
#   lost (the ring buffer overran, or dropped events when not overwriting)
_bio_merges() {
	local n

	n=$(_trace_lost)
	[ "$n" -eq 0 ] || return 0
	grep -cE 'block_bio_(back|front)merge:' "$BB_TRACEFS/trace"
}

_prep_test "bio merging under $bb_scheds with requests waiting in the scheduler"

dev=bb_$TID
_nullb_create "$dev" memory_backed=0 hw_queue_depth=1 irqmode=2 \
	completion_nsec=5000000 || _skip "cannot create a null_blk device"
hdd=bb_${TID}_hdd
_nullb_create "$hdd" memory_backed=0 rotational=1 submit_queues=1 \
	hw_queue_depth=32 irqmode=2 completion_nsec=100000000 ||
	_skip "cannot create the HDD-like null_blk device"
sdhdd=
if _sdebug_create dev_size_mb=64 max_queue=32 ndelay=100000000; then
	sdhdd=$BB_SDEBUG_DEV
	echo 1 > "/sys/block/$sdhdd/queue/rotational" ||
		_fail "cannot mark $sdhdd rotational"
else
	_log "no sd-hdd case: $BB_SDEBUG_WHY"
fi

# _merge_case SCHED CASE DEV JOBS MB MIN_PCT [fio option]...
#   JOBS fio jobs write MB MiB each to DEV, sequentially in 4k bios, each in
#   its own region.  Prints the merge line and sets BB_IOPS to fio's write
#   IOPS (empty if fio did not report them).  Fails if fewer than MIN_PCT%
#   of the bios were merged (MIN_PCT 0: no floor); returns 1, with no merge
#   line, if fio failed or not every bio was accounted.
_merge_case() {
	local sched=$1 case=$2 dev=$3 jobs=$4 mb=$5 min_pct=$6
	local stat=/sys/block/$dev/stat w0 m0 w1 m1 reqs merged bios pct bio_merges
	shift 6

	BB_IOPS=
	if ! _bio_merge_trace on "$dev"; then
		_bio_merge_trace off
		_fail "$sched $case: cannot trace the bio merge events"
		return 1
	fi
	read -r _ _ _ _ w0 m0 _ < "$stat"
	fio --name=bb-merge --filename="/dev/$dev" --ioengine=io_uring \
		--direct=1 --rw=write --bs=4k --numjobs="$jobs" \
		--size="${mb}M" --offset_increment="${mb}M" "$@" \
		--group_reporting --output-format=terse --terse-version=3 \
		> "$BB_TMP/fio.log" 2>&1 &
	if ! _wait_pid $!; then
		_bio_merge_trace off
		_fail_io "$sched $case: fio failed: $(tail -n 5 "$BB_TMP/fio.log")"
		return 1
	fi
	read -r _ _ _ _ w1 m1 _ < "$stat"
	echo 0 > "$BB_TRACEFS/tracing_on"
	bio_merges=$(_bio_merges)
	_bio_merge_trace off
	echo > "$BB_TRACEFS/trace"
	# lost events only matter where the count is checked (queued)
	if [ -z "$bio_merges" ] && [ "$case" = queued ]; then
		_fail "$sched $case: trace events were lost: bio merges not counted"
		return 1
	fi
	bio_merges=${bio_merges:-?}
	reqs=$((w1 - w0))
	merged=$((m1 - m0))
	bios=$((reqs + merged))
	if [ "$bios" -ne $((jobs * mb * 256)) ]; then
		_fail "$sched $case: $bios bios accounted, $((jobs * mb * 256)) written"
		return 1
	fi
	# Terse version 3, one line for the group: field 49 is the write IOPS.
	BB_IOPS=$(awk -F';' '$1 == 3 && $49 ~ /^[0-9]+$/ { print $49; exit }' \
		"$BB_TMP/fio.log")
	pct=$((100 * merged / bios))
	_log "sched=$sched case=$case bios=$bios requests=$reqs merged=$merged" \
	     "ratio=$(awk -v m="$merged" -v b="$bios" 'BEGIN { printf "%.3f", m / b }')" \
	     "bio_merges=$bio_merges"
	[ "$min_pct" -eq 0 ] || [ "$pct" -ge "$min_pct" ] ||
		_fail "$sched $case: only $pct% of the bios were merged (< $min_pct%)"
	if [ "$case" = queued ] && [ $((100 * bio_merges / bios)) -lt "$min_pct" ]; then
		_fail "$sched $case: only $bio_merges of $bios bios merged into a request" \
		      "waiting in the scheduler (->bio_merge(); < $min_pct%)"
	fi
	return 0
}

# _hdd_case SCHED CASE DEV -- the HDD-like job on DEV, and its IOPS
_hdd_case() {
	_log "$1: $3 nr_requests=$(cat "/sys/block/$3/queue/nr_requests")"
	_merge_case "$1" "$2" "$3" $bb_hdd_jobs $bb_hdd_mb 0 --iodepth=32 ||
		return 0
	if [ -n "$BB_IOPS" ]; then
		_log "sched=$1 case=$2 iops=$BB_IOPS"
	else
		_log "$1 $2: no IOPS figure from fio"
	fi
}

ran=0
_watchdog_start "$dev" "$hdd" $sdhdd
for sched in $bb_scheds; do
	_stalled && break
	_require_sched "$dev" "$sched" || continue
	_set_sched "$dev" "$sched" || { _fail "cannot select $sched"; continue; }
	echo 128 > "/sys/block/$dev/queue/nr_requests" ||
		{ _fail "$sched: cannot set nr_requests"; continue; }
	_merge_case "$sched" queued "$dev" 2 $bb_size_mb $bb_min_pct \
		--iodepth=64 --iodepth_batch_submit=1
	_merge_case "$sched" plugged "$dev" 2 $bb_size_mb $bb_min_pct \
		--iodepth=64 --iodepth_batch_submit=16
	_set_sched "$hdd" "$sched" ||
		{ _fail "cannot select $sched on $hdd"; continue; }
	_hdd_case "$sched" hdd "$hdd"
	if [ -n "$sdhdd" ]; then
		if _set_sched "$sdhdd" "$sched"; then
			_hdd_case "$sched" sd-hdd "$sdhdd"
		else
			_fail "cannot select $sched on $sdhdd"
		fi
	fi
	ran=$((ran + 1))
done
_watchdog_stop
_skip_if_untested $ran "no scheduler could be tested"

_show_result
