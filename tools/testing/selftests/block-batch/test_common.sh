#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Common helpers for the block-batch selftests.  Modelled on the ublk
# selftests: source this file, declare requirements with _require_*, set up
# with _prep_test, tear down with _cleanup_test and report with _show_result.

# test_<group>_<NN>.sh -> <group>_<NN>
TID=$(basename "$0" .sh)
TID=${TID#test_}

BB_SKIP_CODE=4
BB_SCHEDULERS=${BB_SCHEDULERS:-"none mq-deadline bfq kyber"}
BB_NULLB_CFS=/sys/kernel/config/nullb
BB_NULLB_NAMES=()

_log() {
	echo "# $TID: $*"
}

# _skip REASON -- skip the whole test, like blktests' SKIP_REASONS
_skip() {
	echo "# $TID: SKIP: $*"
	_cleanup_test
	echo "$TID : [SKIP]"
	exit "$BB_SKIP_CODE"
}

_fail() {
	echo "# $TID: FAIL: $*"
	BB_ERR=1
}

_have_program() {
	command -v "$1" >/dev/null 2>&1
}

_require_root() {
	[ "$(id -u)" -eq 0 ] || _skip "must run as root"
}

_require_program() {
	_have_program "$1" || _skip "$1 is not installed"
}

# _require_fio_engine ENGINE
_require_fio_engine() {
	fio --enghelp 2>/dev/null | grep -qw "$1" ||
		_skip "fio has no $1 ioengine"
}

_require_null_blk() {
	[ -d "$BB_NULLB_CFS" ] && return 0
	if [ -d /sys/kernel/config ] && ! mountpoint -q /sys/kernel/config; then
		mount -t configfs none /sys/kernel/config 2>/dev/null
	fi
	[ -d "$BB_NULLB_CFS" ] || modprobe null_blk nr_devices=0 2>/dev/null
	[ -d "$BB_NULLB_CFS" ] ||
		_skip "null_blk configfs is not available" \
		      "(CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)"
}

_require_debugfs() {
	[ -d /sys/kernel/debug/block ] && return 0
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -d /sys/kernel/debug/block ] ||
		_skip "block debugfs is not available (CONFIG_BLK_DEBUG_FS)"
}

# _sched_available DEV SCHED
_sched_available() {
	[ "$2" = none ] && return 0
	grep -qw -- "$2" "/sys/block/$1/queue/scheduler"
}

# _set_sched DEV SCHED -- switch and check that the switch took effect
_set_sched() {
	local dev=$1 sched=$2

	echo "$sched" > "/sys/block/$dev/queue/scheduler" || return 1
	grep -q "\[$sched\]" "/sys/block/$dev/queue/scheduler"
}

# _nullb_create NAME [attr=value]...
#   Create a null_blk device through configfs; its disk is /dev/NAME (null_blk
#   names configfs devices after their directory).  Not in a subshell: the
#   device is remembered for _cleanup_test.
#   Defaults: memory backed, 4k blocks, 256 MiB, one submit queue per CPU.
_nullb_create() {
	local name=$1 dir kv
	shift

	dir=$BB_NULLB_CFS/$name
	mkdir "$dir" || return 1
	BB_NULLB_NAMES+=("$name")
	for kv in memory_backed=1 blocksize=4096 size=256 \
		  submit_queues="$(nproc)" hw_queue_depth=64 irqmode=0 "$@"; do
		if ! echo "${kv#*=}" > "$dir/${kv%%=*}"; then
			echo "# $TID: null_blk $name: cannot set ${kv}" >&2
			return 1
		fi
	done
	echo 1 > "$dir/power" || return 1
	[ -b "/dev/$name" ] && [ -d "/sys/block/$name" ]
}

_nullb_destroy() {
	local name=$1

	[ -d "$BB_NULLB_CFS/$name" ] || return 0
	echo 0 > "$BB_NULLB_CFS/$name/power" 2>/dev/null
	rmdir "$BB_NULLB_CFS/$name"
}

# _fio_verify DEV ENGINE [fio option]...
#   Several jobs write disjoint ranges with crc32c verify, then read back.
_fio_verify() {
	local dev=$1 engine=$2
	shift 2

	fio --name=bb-verify --filename="/dev/$dev" --ioengine="$engine" \
		--direct=1 --rw=randwrite --bs=4k --iodepth=16 \
		--numjobs=4 --size=32M --offset_increment=32M \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 --group_reporting "$@" \
		> "$BB_TMP/fio.$dev.log" 2>&1
	local rc=$?

	if [ $rc -ne 0 ] || grep -q 'verify: bad' "$BB_TMP/fio.$dev.log"; then
		sed 's/^/#   /' "$BB_TMP/fio.$dev.log" | tail -n 20
		return 1
	fi
	return 0
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
	for sched in $BB_SCHEDULERS; do
		if ! _sched_available "$dev" "$sched"; then
			_log "$sched: not built in, not tested"
			continue
		fi
		if ! _set_sched "$dev" "$sched"; then
			_fail "cannot select $sched"
			continue
		fi
		if _fio_verify "$dev" "$engine"; then
			_log "$sched: ok"
			ran=$((ran + 1))
		else
			_fail "$sched: fio write+verify failed"
		fi
	done
	[ $ran -gt 0 ] || [ "$BB_ERR" -ne 0 ] || _skip "no scheduler could be tested"
	_show_result
}

# _verify_while PID DEV -- short fio write+verify runs on DEV, one after the
#   other, for as long as PID (a stress loop) lives, at least once.  Sets
#   BB_RUNS to the number of runs; fails at the first verify error.
_verify_while() {
	local pid=$1 dev=$2

	BB_RUNS=0
	while kill -0 "$pid" 2>/dev/null || [ "$BB_RUNS" -eq 0 ]; do
		_fio_verify "$dev" io_uring --size=8M --offset_increment=8M ||
			return 1
		BB_RUNS=$((BB_RUNS + 1))
	done
}

# Everything the kernel must never say while a test runs.
BB_SPLAT_RE='WARNING:|BUG:|Oops|general protection fault'
BB_SPLAT_RE+='|possible circular locking|possible recursive locking'
BB_SPLAT_RE+='|inconsistent lock state|possible irq lock inversion'
BB_SPLAT_RE+='|suspicious RCU usage|turning off the locking correctness validator'
BB_SPLAT_RE+='|KASAN:|KCSAN:|UBSAN:|blocked for more than|soft lockup|hard LOCKUP'
BB_SPLAT_RE+='|Call Trace:'

# _prep_test DESCRIPTION -- mark the kernel log and make a scratch directory
_prep_test() {
	BB_ERR=0
	BB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/block-batch-$TID.XXXXXX")
	BB_MARK="block-batch-selftest: start $TID $$ $RANDOM"
	echo "$BB_MARK" > /dev/kmsg 2>/dev/null || BB_MARK=
	_log "$1"
}

# _check_dmesg -- fail on any splat logged since _prep_test
_check_dmesg() {
	local log

	[ -n "${BB_MARK:-}" ] || return 0
	log=$(dmesg | sed -n "/$BB_MARK/,\$p")
	if echo "$log" | grep -Eq "$BB_SPLAT_RE"; then
		echo "$log" | sed 's/^/# dmesg: /' | head -n 80
		_fail "kernel splat in dmesg"
	fi
}

_cleanup_test() {
	local name

	for name in "${BB_NULLB_NAMES[@]}"; do
		_nullb_destroy "$name"
	done
	BB_NULLB_NAMES=()
	[ -n "${BB_TMP:-}" ] && rm -rf "$BB_TMP"
}

# _show_result -- check dmesg, clean up, print and exit with the verdict
_show_result() {
	_check_dmesg
	_cleanup_test
	if [ "${BB_ERR:-1}" -eq 0 ]; then
		echo "$TID : [PASS]"
		exit 0
	fi
	echo "$TID : [FAIL]"
	exit 1
}
