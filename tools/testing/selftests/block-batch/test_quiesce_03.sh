#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Request-based device-mapper suspend/resume under fio writes, none
# and mq-deadline on the dm device: quiesce and unquiesce of a live blk-mq
# queue, not frozen around them.  Devices: a dm-multipath table with one
# path, a null_blk; request-based dm has a blk-mq queue of its own.
# A cycle is "dmsetup suspend --nolockfs" (blk_mq_quiesce_queue() of the dm
# queue, then a wait until no dm request is started; fio keeps submitting
# into the quiesced queue), then "dmsetup resume" (blk_mq_unquiesce_queue(),
# then a kick of the requeue list, whose work runs every hw queue again).
#
# What fails: a request that no run dispatches after the resume stays
# queued, fio waits for it and the watchdog reports a stall; a write that
# completes with an error fails fio; a WARN (an unbalanced unquiesce) fails
# the dmesg check.  So does a loop in which no cycle started with requests
# in flight (/sys/block/DM/stat), or no resume found requests waiting, or
# a cycle in which the queue's debugfs state did not show QUIESCED while
# suspended, or still showed it after the resume.
# Bounded: at most CYCLES cycles or BB_STRESS_SECS seconds per scheduler,
# whichever comes first; fewer than MIN_CYCLES is a SKIP (machine too slow),
# as is a null_blk or dm-multipath device that cannot be created.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

CYCLES=${CYCLES:-300}
MIN_CYCLES=${MIN_CYCLES:-5}

_require_root
_require_program fio
_require_fio_engine io_uring
_require_null_blk
_require_dm_multipath
_require_debugfs

_prep_test "up to $CYCLES dm suspend/resume cycles under fio writes, none and mq-deadline"

nb=bb_$TID		# the null_blk: the one path
mp=bb_${TID}_mpath	# the dm device's name

# fio writes without verify (see _mpath_on_null_blk)
_mpath_on_null_blk "$nb" "$mp"
dmdev=$BB_DM_DEV

# _suspend_loop NAME -- suspend and resume the dm device until the stress
# bounds say stop; writes to $BB_TMP/waiting.NAME "WAITING SHOWN STALE
# SUSPENDS": how many resumes found requests waiting on the quiesced queue,
# how many suspended queues the debugfs state showed QUIESCED, how many
# resumed queues it still showed QUIESCED, and the suspends
_suspend_loop() {
	local waiting=0 shown=0 stale=0 suspends=0
	local state=$BB_DEBUGFS/$dmdev/state

	_stress_begin "$1" "$CYCLES"
	while _stress_continue; do
		_stress_step "$(_inflight_soon "$dmdev")"
		_dmsetup suspend --nolockfs "$mp" || return 1
		suspends=$((suspends + 1))
		# suspended: no request is started, those counted are waiting
		[ "$(_inflight "$dmdev")" -gt 0 ] && waiting=$((waiting + 1))
		grep -qw QUIESCED "$state" && shown=$((shown + 1))
		_dmsetup resume "$mp" || return 1
		grep -qw QUIESCED "$state" && stale=$((stale + 1))
	done
	_stress_end
	echo "$waiting $shown $stale $suspends" > "$BB_TMP/waiting.$1"
}

ran=0
_watchdog_start "$dmdev" "$nb"
for sched in none mq-deadline; do
	_require_sched "$dmdev" "$sched" || continue
	_set_sched "$dmdev" "$sched" || { _fail "cannot select $sched on $dmdev"; continue; }
	_stress_spawn "suspend-$sched" _suspend_loop "suspend-$sched"
	_verify_while "suspend-$sched" "$BB_STRESS_PID" "$dmdev" \
		--verify=0 --do_verify=0 || break
	_log "$sched: $BB_RUNS fio runs"
	_stress_verdict "$sched" "$MIN_CYCLES" inflight || continue
	read -r waiting shown stale suspends 2>/dev/null \
		< "$BB_TMP/waiting.suspend-$sched" ||
		{ waiting=0 shown=0 stale=0 suspends=0; }
	_log "$sched: $waiting of $BB_CYCLES resumes found requests waiting" \
	     "on the quiesced queue"
	_log "$sched: debugfs state QUIESCED in $shown of $suspends" \
	     "suspends, after $stale resumes"
	[ "$shown" -eq "$suspends" ] && [ "$stale" -eq 0 ] ||
		_fail "$sched: $dmdev's debugfs state showed QUIESCED in" \
		      "$shown of $suspends suspends and after $stale resumes"
	if [ "$waiting" -eq 0 ]; then
		_fail "$sched: no resume found requests waiting on the quiesced queue"
		continue
	fi
	ran=$((ran + 1))
done
_watchdog_stop
_skip_if_untested $ran "neither none nor mq-deadline could be tested"

_show_result
