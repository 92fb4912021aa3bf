#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ublk under mq-deadline and bfq: fio write+verify on a kublk loop device
# with two hardware queues while, in a loop, the ublk server goes away and
# a new one takes over (user recovery with reissue, kublk add -i 1, so no
# request fails meanwhile).  Device: one ublk device (ublkbN) over a
# 128 MiB backing file in BB_TMP.  Each cycle the server is killed with
# SIGKILL in the middle of I/O (odd cycles use "kublk quiesce" instead),
# requests dispatched meanwhile are requeued, and "kublk recover" starts a
# new server that gets them back.  The quiesce cycles need a kublk that
# exits with fetches still pending ("selftests: ublk: end a stopping
# queue thread with only fetches in flight", in the ublk posting of this
# series); UBLK_QUIESCE=0 leaves them out.
#
# What fails: a request that no queue run dispatches after the recovery
# keeps fio waiting: the watchdog reports "stalled" with the queue's state.
# A write lost or misplaced across the takeover fails fio's verify; a
# device that does not come back LIVE, or a scheduler that did not survive
# the recovery, fails the test; a WARN fails the dmesg check.  So does a
# loop with no cycle started with requests in flight, or no QUIESCED device
# holding requests.  Bounded: at most CYCLES cycles or BB_STRESS_SECS
# seconds per scheduler; fewer than MIN_CYCLES is a SKIP (machine too
# slow), as is a missing kublk or ublk driver.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

CYCLES=${CYCLES:-200}
UBLK_QUIESCE=${UBLK_QUIESCE:-1}
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
