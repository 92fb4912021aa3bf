#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe controller resets under fio write+verify, none and mq-deadline.  A
# reset quiesces every namespace queue of a live controller
# (nvme_quiesce_io_queues(): the queue is not frozen first, so submitters
# race with quiesce and unquiesce), cancels and requeues what is in flight,
# and unquiesces: a request stranded by a lost queue run is reported as a
# stall by the watchdog, a lost one fails verify.
#
# Device: the NVMe namespace named by BB_NVME_DEV (nvmeXnY); its data is
# destroyed, and without it the test skips.  The controller reset is the
# one that owns that namespace (with native multipath, the controller of
# its one path; several paths are refused).
# Refused: any namespace of that controller, or a partition of one, that is
# mounted, used as swap or held by another device (dm, md, ...).
#
# Bounded: at most RESETS resets or BB_STRESS_SECS seconds per scheduler;
# fewer than MIN_RESETS is a SKIP (machine too slow); none that started with
# requests in flight is a failure.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

RESETS=${RESETS:-50}
MIN_RESETS=${MIN_RESETS:-2}

_require_root
_require_program fio
_require_fio_engine io_uring

[ -n "${BB_NVME_DEV:-}" ] ||
	_skip "BB_NVME_DEV names no NVMe namespace to reset (its data is destroyed)"
ns=${BB_NVME_DEV#/dev/}
[ -b "/dev/$ns" ] && [ -d "/sys/block/$ns" ] ||
	_skip "BB_NVME_DEV=$BB_NVME_DEV is not an NVMe namespace block device"
mapfile -t ctrls < <(_nvme_ns_ctrls "$ns")
[ ${#ctrls[@]} -eq 1 ] ||
	_skip "$ns has ${#ctrls[@]} controllers (${ctrls[*]}): name a namespace with one path"
ctrl=/sys/class/nvme/${ctrls[0]}
[ -w "$ctrl/reset_controller" ] || _skip "$ctrl has no reset_controller"
# A reset disrupts every namespace of the controller, not just ours.
for b in "$ctrl"/nvme*n* /sys/block/"${ctrls[0]}"n*; do
	[ -e "$b" ] || continue
	b=${b##*/}
	case $b in nvme*c*n*) b=${b%%c*}n${b##*n} ;; esac
	why=$(_disk_in_use "$b") && _skip "refusing to reset ${ctrls[0]}: $why"
done

_prep_test "up to $RESETS resets of ${ctrls[0]} under fio verify on $ns"

# _reset_loop NAME -- controller resets (each waits until the controller is
# live again), until the stress bounds say stop
_reset_loop() {
	local t

	_stress_begin "$1" "$RESETS"
	while _stress_continue; do
		_stress_step "$(_inflight_soon "$ns")"
		echo 1 > "$ctrl/reset_controller" || return 1
		t=0
		until grep -q live "$ctrl/state"; do
			sleep 0.1
			t=$((t + 1))
			[ $t -lt $((BB_STALL_SECS * 10)) ] || return 1
		done
	done
	_stress_end
}

ran=0
_watchdog_start "$ns"
for sched in none mq-deadline; do
	_require_sched "$ns" "$sched" || continue
	_set_sched "$ns" "$sched" || { _fail "cannot select $sched on $ns"; continue; }
	_stress_spawn "reset-$sched" _reset_loop "reset-$sched"
	_verify_while "reset-$sched" "$BB_STRESS_PID" "$ns" || break
	_log "$sched: $BB_RUNS fio verify runs"
	_stress_verdict "$sched" "$MIN_RESETS" inflight && ran=$((ran + 1))
	grep -q live "$ctrl/state" || _fail "$sched: controller not live after the resets"
done
_watchdog_stop
_skip_if_untested $ran "neither none nor mq-deadline could be tested"

_show_result
