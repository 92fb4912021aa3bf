# SPDX-License-Identifier: GPL-2.0
#
# I/O load with fio: write and verify, and scheduler switching under it.
# Sourced by test_common.sh.

# _sched_switch_loop NAME MAX DEV SCHED... -- a stress loop (run it with
#   _stress_spawn): switch DEV round the schedulers SCHED..., at most MAX
#   switches or until the stress bounds say stop
_sched_switch_loop() {
	local name=$1 max=$2 dev=$3 s

	shift 3
	_stress_begin "$name" "$max"
	while _stress_continue; do
		for s in "$@"; do
			_stress_step "$(_inflight_soon "$dev")"
			_set_sched "$dev" "$s" ||
				{ echo "# $TID: switch $dev to $s failed"; return 1; }
		done
	done
	_stress_end
}

# _fio_verify DEV[:DEV...] ENGINE [fio option]...
#   Several jobs write disjoint ranges with crc32c verify, then read back;
#   with several DEVs, each job's I/O goes round them (fio's file list).
#   fio runs in the background and is waited for with _wait_pid, so that a
#   stalled fio (see _watchdog_start) never blocks the test itself.
_fio_verify() {
	local dev=$1 engine=$2 rc
	shift 2

	fio --name=bb-verify --filename="/dev/${dev//:/:\/dev\/}" --ioengine="$engine" \
		--direct=1 --rw=randwrite --bs=4k --iodepth=16 \
		--numjobs=4 --size=32M --offset_increment=32M \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 --group_reporting "$@" \
		> "$BB_TMP/fio.$dev.log" 2>&1 &
	_wait_pid $!
	_fio_ok $? "$BB_TMP/fio.$dev.log"
}

# _fio_ok RC LOG -- fio exited with RC and wrote LOG: true when it ran
#   clean (status 0, no verify mismatch), else false after the log's tail
#   (left out after a stall, whose dump says more)
_fio_ok() {
	[ "$1" -eq 0 ] && ! grep -q 'verify: bad' "$2" && return 0
	_stalled || sed 's/^/#   /' "$2" | tail -n 20
	return 1
}

# _integrity_test ENGINE -- fio write+verify through each scheduler in turn
_integrity_test() {
	local engine=$1 dev sched ran=0

	_require_root
	_require_program fio
	_require_fio_engine "$engine"
	_require_null_blk
	_prep_test "write+verify, $engine, schedulers: $BB_SCHEDULERS"

	dev=bb_$TID
	_nullb_create "$dev" || _skip "cannot create a null_blk device"
	_watchdog_start "$dev"
	for sched in $BB_SCHEDULERS; do
		_require_sched "$dev" "$sched" || continue
		if ! _set_sched "$dev" "$sched"; then
			_fail "cannot select $sched"
			continue
		fi
		# 4 jobs x 8 MiB: bounded work, so that a loaded machine
		# stays well inside the runner's timeout (32 MiB each took
		# over 600 s for four schedulers in a test VM whose host ran
		# two CPU hogs and a kernel build beside it)
		if _fio_verify "$dev" "$engine" --size=8M --offset_increment=8M; then
			_log "$sched: ok"
			ran=$((ran + 1))
		else
			_fail_io "$sched: fio write+verify failed"
			break
		fi
	done
	_watchdog_stop
	_show_result
}

# _verify_while NAME PID DEV [fio option]... -- short fio write+verify runs
#   on DEV, one after the other, for as long as stress loop NAME (PID) runs,
#   at least once; then waits for the loop (_stress_wait).  Sets BB_RUNS.
#   Fails the test at the first verify error or stall.  The fio options
#   come last (--verify=0 --do_verify=0: a device that keeps no data).
_verify_while() {
	local name=$1 pid=$2 dev=$3
	shift 3

	BB_RUNS=0
	while kill -0 "$pid" 2>/dev/null || [ "$BB_RUNS" -eq 0 ]; do
		if ! _fio_verify "$dev" io_uring --size=8M --offset_increment=8M "$@"; then
			_fail_io "$name: fio write+verify failed"
			break
		fi
		BB_RUNS=$((BB_RUNS + 1))
	done
	_stress_wait "$name" "$pid" || _fail_io "$name: the stress loop failed"
	! _stalled && [ "$BB_ERR" -eq 0 ]
}
