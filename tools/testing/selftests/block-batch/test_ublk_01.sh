#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ublk under mq-deadline and bfq: fio write+verify on a kublk loop device
# with two hardware queues (so single-CPU dispatch for these schedulers,
# and batch dispatch of the series) while, in a loop, the ublk server goes
# away and a new one takes over (user recovery with reissue, kublk add
# -i 1: UBLK_F_USER_RECOVERY_REISSUE, so no request fails meanwhile):
#  - the server is killed with SIGKILL in the middle of I/O: io_uring
#    cancels its commands, and ublk_start_cancel() quiesces the queue,
#    marks it canceling and unquiesces it;
#  - with UBLK_QUIESCE=1, odd cycles use "kublk quiesce"
#    (UBLK_U_CMD_QUIESCE_DEV) instead: ublk_ctrl_quiesce_dev() quiesces
#    the live queue with blk_mq_quiesce_queue(), marks the queues
#    canceling and unquiesces it, waits for an idle command per queue,
#    then cancels the server's commands once: the server exits.  Off by
#    default: on a loaded host it hung twice (below);
#  - either way, from then on __ublk_queue_rq_common() requeues each
#    request dispatched to it without issuing it (__ublk_abort_rq(), no
#    kick), ublk_ch_release() requeues those the server held
#    (ublk_abort_queue()) and the device becomes QUIESCED;
#  - then "kublk recover" starts a new server: ublk_ctrl_end_recovery()
#    kicks the requeue list, and every request waiting since goes back
#    into the queue (blk_mq_requeue_work()) and on to the new server.
#
# What fails: a request that no queue run dispatches after the recovery
# (the requeue kick lost, a queue left quiesced, a request stranded on a
# dispatch list) keeps fio waiting: the watchdog reports "stalled" with the
# queue's state.  A write lost or misplaced across the takeover fails fio's
# verify; a device that does not come back LIVE, or a scheduler that did
# not survive the recovery, fails the test; a WARN fails the dmesg check.
#
# The "kublk quiesce" hang: twice on a loaded host, at a quiesce cycle
# under fio verify (mq-deadline with 2 x 32 commands and 64 requests in
# flight; bfq with 2 x 64 commands and 32 in flight), the device stayed
# LIVE for 90 s, every request on the requeue list, no driver tag busy (so
# the server held no request) and no task blocked.  The likely cause, from
# the code and not yet traced: ublk_prep_req() starts a request before
# __ublk_queue_rq_common() sees ->canceling and requeues it, and
# ublk_cancel_cmd() skips a command whose request is started at that
# moment, counting on a later cancel pass ("this uring_cmd is canceled
# next time"); ublk_ctrl_quiesce_dev() makes only one, so with requests
# still arriving a command can stay uncancelled and the server never
# learns of the quiesce.  The series does not change this code; the base
# kernel was not run this way yet.
#
# Bounded: at most CYCLES cycles or BB_STRESS_SECS seconds per scheduler,
# whichever comes first; fewer than MIN_CYCLES is a SKIP (machine too slow).
# A cycle "started with requests in flight" when /sys/block/ublkbN/stat
# counted requests in flight (waiting up to 2 s) before the server went;
# none such is a failure (nothing was tested).  So is a loop in which no
# QUIESCED device held requests (counted in flight while no server runs:
# waiting for the next one).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

CYCLES=${CYCLES:-200}
UBLK_QUIESCE=${UBLK_QUIESCE:-0}
MIN_CYCLES=${MIN_CYCLES:-4}

_require_root
_require_program fio
_require_fio_engine io_uring
_require_kublk UBLK_F_QUIESCE UBLK_F_USER_RECOVERY_REISSUE

_prep_test "ublk loop device under mq-deadline and bfq: fio verify while" \
	   "the server is killed$([ "$UBLK_QUIESCE" = 1 ] && echo ' or quiesced')" \
	   "and recovered, up to $CYCLES cycles"

backing=$BB_TMP/ublk-backing
truncate -s 128M "$backing" || _skip "cannot create a 128 MiB backing file in $BB_TMP"
# the device, and again (with -n ID) its recovery: the same arguments
args=(-t loop -q 2 -d 32 -i 1)
id=$(_ublk_add "${args[@]}" "$backing") ||
	_skip "cannot add a kublk loop device ('kublk add ${args[*]}')"
dev=ublkb$id
[ -b "/dev/$dev" ] || _skip "ublk device $id has no /dev/$dev"
_log "$dev: $(cat "/sys/block/$dev/queue/nr_requests") requests," \
     "$(ls -d "/sys/block/$dev/mq/"* | wc -l) hw queues"

# _takeover_loop NAME -- cycles of server gone, then a new server; writes
#   to $BB_TMP/waiting.NAME how many QUIESCED states held requests
_takeover_loop() {
	local waiting=0 pid

	_stress_begin "$1" "$CYCLES"
	while _stress_continue; do
		_stress_step "$(_inflight_soon "$dev")"
		if [ "$UBLK_QUIESCE" = 1 ] && [ $((BB_ST_N % 2)) -eq 1 ]; then
			"$BB_KUBLK" quiesce -n "$id" > /dev/null ||
				{ echo "# $TID: kublk quiesce -n $id failed"; return 1; }
		else
			pid=$(_ublk_field "$id" pid)
			[ "${pid:-0}" -gt 0 ] ||
				{ echo "# $TID: ublk $id has no server pid"; return 1; }
			kill -KILL "$pid"
		fi
		_ublk_wait_state "$id" QUIESCED || return 1
		# no server: requests counted in flight wait for the next one
		[ "$(_inflight "$dev")" -gt 0 ] && waiting=$((waiting + 1))
		"$BB_KUBLK" recover "${args[@]}" -n "$id" "$backing" > /dev/null ||
			{ echo "# $TID: kublk recover -n $id failed"; return 1; }
		_ublk_wait_state "$id" LIVE || return 1
	done
	_stress_end
	echo "$waiting" > "$BB_TMP/waiting.$1"
}

ran=0
_watchdog_start "$dev"
for sched in mq-deadline bfq; do
	_require_sched "$dev" "$sched" || continue
	_set_sched "$dev" "$sched" || { _fail "cannot select $sched on $dev"; continue; }
	# first through the scheduler with the server in place
	if ! _fio_verify "$dev" io_uring --size=16M --offset_increment=16M; then
		_fail_io "$sched: fio write+verify failed"
		break
	fi
	_stress_spawn "takeover-$sched" _takeover_loop "takeover-$sched"
	_verify_while "takeover-$sched" "$BB_STRESS_PID" "$dev" || break
	_log "$sched: $BB_RUNS fio runs"
	_stress_verdict "$sched" "$MIN_CYCLES" inflight || continue
	read -r waiting 2>/dev/null < "$BB_TMP/waiting.takeover-$sched" || waiting=0
	_log "$sched: $waiting of $BB_CYCLES QUIESCED states held requests" \
	     "waiting for the new server"
	if [ "$waiting" -eq 0 ]; then
		_fail "$sched: no QUIESCED state held requests waiting"
		continue
	fi
	if ! _sched_is "$dev" "$sched"; then
		_fail "$sched: not the scheduler after recovery:" \
		      "$(cat "/sys/block/$dev/queue/scheduler")"
		continue
	fi
	ran=$((ran + 1))
done
_watchdog_stop
_skip_if_untested $ran "neither mq-deadline nor bfq could be tested"

_show_result
