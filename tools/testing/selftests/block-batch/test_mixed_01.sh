#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mixed random reads and writes through mq-deadline and bfq.
#
# Reads and writes take different paths in both schedulers (separate FIFOs
# and sort trees per direction in mq-deadline, sync/async queues and depth
# limits in bfq), and a dispatch batch mixes them.  Four fio jobs, two with
# io_uring and two with libaio, each do rw=randrw (rwmixread=50) with crc32c
# verify on its own region of a memory-backed null_blk that was written in
# full beforehand (so reads hit written data).  For each scheduler: fio exits
# 0 with no verify error, and /sys/block/DEV/stat shows that both reads
# (field 1) and writes (field 5) completed during the run.  No splat.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

bb_jobs=4
bb_region_mb=8

_require_root
_require_program fio
_require_fio_engine io_uring
_require_fio_engine libaio
_require_null_blk

_prep_test "mixed randrw with verify, io_uring + libaio, mq-deadline and bfq"

dev=bb_$TID
_nullb_create "$dev" || _skip "cannot create a null_blk device"

# Write the whole region once.
_watchdog_start "$dev"
fio --name=bb-fill --filename="/dev/$dev" --ioengine=psync --direct=1 \
	--rw=write --bs=128k --size=$((bb_jobs * bb_region_mb))M \
	> "$BB_TMP/fill.log" 2>&1 &
_wait_pid $! || _fail_io "pre-fill failed: $(tail -n 5 "$BB_TMP/fill.log")"
_watchdog_stop

# One job file: jobs 0..1 io_uring, 2..3 libaio, each on its own region.
{
	cat <<-EOF
	[global]
	filename=/dev/$dev
	direct=1
	rw=randrw
	rwmixread=50
	bs=4k
	iodepth=16
	size=${bb_region_mb}M
	verify=crc32c
	verify_fatal=1
	verify_state_save=0
	EOF
	for j in $(seq 0 $((bb_jobs - 1))); do
		if [ "$j" -lt $((bb_jobs / 2)) ]; then
			engine=io_uring
		else
			engine=libaio
		fi
		printf '[mixed%d]\nioengine=%s\noffset=%dM\n' \
			"$j" "$engine" $((j * bb_region_mb))
	done
} > "$BB_TMP/mixed.fio"

# _stat DEV -- "reads writes" completed (fields 1 and 5 of the stat file)
_stat() {
	awk '{ print $1, $5 }' "/sys/block/$1/stat"
}

tested=0
_watchdog_start "$dev"
for sched in mq-deadline bfq; do
	[ "$BB_ERR" -eq 0 ] || break
	_require_sched "$dev" "$sched" || continue
	_set_sched "$dev" "$sched" || { _fail "cannot select $sched"; continue; }
	read -r r0 w0 < <(_stat "$dev")
	fio "$BB_TMP/mixed.fio" > "$BB_TMP/fio.$sched.log" 2>&1 &
	_wait_pid $!
	rc=$?
	read -r r1 w1 < <(_stat "$dev")
	if ! _fio_ok $rc "$BB_TMP/fio.$sched.log"; then
		_fail_io "$sched: fio mixed randrw failed (exit $rc)"
		continue
	fi
	_log "$sched: fio ok, $((r1 - r0)) reads and $((w1 - w0)) writes completed"
	[ "$r1" -gt "$r0" ] || _fail "$sched: no read completed (stat field 1)"
	[ "$w1" -gt "$w0" ] || _fail "$sched: no write completed (stat field 5)"
	tested=$((tested + 1))
done

_watchdog_stop
_skip_if_untested $tested "neither mq-deadline nor bfq could be tested"
_show_result
