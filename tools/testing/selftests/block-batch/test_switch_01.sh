#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Switch the I/O scheduler in a loop (none, mq-deadline, bfq, kyber) while
# fio write+verify runs on a multi-queue null_blk.  Every switch freezes and
# quiesces the queue with I/O queued behind it, tears one elevator down and
# sets the next one up.  No verify error, no stall, no splat.
#
# Bounded: at most SWITCHES switches or BB_STRESS_SECS seconds; fewer than
# MIN_SWITCHES is a SKIP (machine too slow; 10: 28 switches in a 60 s loop
# with two CPU hogs on a 2-core host); no switch that started with
# requests in flight is a failure (fio was not running).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

SWITCHES=${SWITCHES:-2000}
MIN_SWITCHES=${MIN_SWITCHES:-10}

_require_root
_require_program fio
_require_fio_engine io_uring
_require_null_blk

_prep_test "scheduler switching under fio verify"

dev=bb_$TID
_nullb_create "$dev" || _skip "cannot create a null_blk device"
scheds=()
for s in $BB_SCHEDULERS; do
	_require_sched "$dev" "$s" && scheds+=("$s")
done
[ ${#scheds[@]} -ge 2 ] || _skip "fewer than two schedulers available: ${scheds[*]}"

_watchdog_start "$dev"
_stress_spawn switch _sched_switch_loop switch "$SWITCHES" "$dev" "${scheds[@]}"
_verify_while switch "$BB_STRESS_PID" "$dev"
_watchdog_stop
_log "$BB_RUNS fio verify runs while switching among ${scheds[*]}"
_stress_verdict "switches" "$MIN_SWITCHES" inflight

_show_result
