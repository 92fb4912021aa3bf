#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Request merging through mq-deadline and bfq: batch dispatch must not
# cost merges.  fio jobs write their own regions sequentially in 4k bios
# (io_uring, direct=1) while a slow device keeps requests waiting in the
# scheduler.  Devices: two null_blk (memory_backed=0, 4k blocks) and one
# scsi_debug disk (_sdebug_create):
#   bb_merge_01      hw_queue_depth=1, 5 ms completions, nr_requests=128;
#                    cases queued (one bio per submission) and plugged (16)
#   bb_merge_01_hdd  HDD-like: rotational=1, 32 tags, 100 ms completions;
#                    case hdd (eight jobs of 1 MiB each, iodepth=32)
#   scsi_debug       max_queue=32, 100 ms delay, rotational=1: case sd-hdd
# queued and plugged fail if fewer than half of the bios were merged, and
# queued if fewer than bb_min_pct% of the bios were bio merges into waiting
# requests (block:block_bio_backmerge/frontmerge): what fails if the
# scheduler lock is skipped while requests wait in the merge hash.  Every
# case fails if a bio written was not accounted, as a request or a merge;
# hdd and sd-hdd ratios and IOPS are reported, never checked.  Skips when a
# device cannot be created or no scheduler could be tested.  Output:
#   merge_01: sched=S case=C bios=B requests=R merged=M ratio=M/B bio_merges=N
#   merge_01: sched=S case=hdd|sd-hdd iops=N

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
