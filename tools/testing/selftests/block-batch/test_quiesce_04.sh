#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Nested quiesce of a live blk-mq queue: when two users quiesce the same
# queue, no request may reach the driver until both have unquiesced.  The
# quiesce depth (q->quiesce_depth) counts them; blk_mq_unquiesce_queue()
# must release the queue only when it drops the depth to zero.
# Device: a dm-multipath table over a null_blk (request-based dm has a
# blk-mq queue of its own).  A round: "dmsetup suspend --nolockfs" (dm's
# quiesce of the dm queue, held across system calls: the outer level), then
# a second user quiesces and unquiesces the same queue while no I/O is
# pending (it freezes the queue first): round "sched", a switch from an I/O
# scheduler to none (elevator_switch()); round "nr_requests", two writes
# of queue/nr_requests (blk_mq_update_nr_requests()), the depth 1, 2, 1
# twice.  Then NR direct writes of one block each, 64 KiB apart (dd
# oflag=direct; apart, or they merge into fewer requests), with
# none on the dm device: a writer's own submission tries to issue its
# request to the driver (blk_mq_try_issue_directly()).  Once every write is
# accounted in flight (/sys/block/DM/stat field 9) and every writer sleeps
# waiting for it (state D), progress and not time says that each
# submission is over; a kprobe on dm's ->queue_rq(), dm_mq_queue_rq(),
# must have fired no time since the suspend, and /sys/block/DM/inflight
# (requests in the driver) must read 0.  Then "dmsetup resume" (the outer
# unquiesce): every write must complete, with at least NR calls of
# dm_mq_queue_rq() (the kprobe sees dm's dispatches).
#
# What fails: a call of dm_mq_queue_rq() while dm holds its quiesce (the
# second user's unquiesce released the queue: dm answers BLK_STS_RESOURCE
# while suspended, see dm_mq_queue_rq(), and blk-mq retries), a request in
# the driver, a write that ends before the resume or fails, a stall (the
# watchdog: no I/O and no step of a round for BB_STALL_SECS), a WARN (an
# unbalanced unquiesce) or any other splat.  Only dm holds a quiesce from
# user space, so the outer level is always dm's.
# Skips when dm-multipath or kprobe events are not available,
# dm_mq_queue_rq() cannot be probed, or another request-based dm device
# exists (its dispatches would count); the "sched" round alone when no I/O
# scheduler can be selected on the dm device.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

NR=${NR:-4}		# direct writes per round, one 4 KiB block each
GROUP=bb_quiesce_04
PROBES=("queue_rq dm_mq_queue_rq")

_require_root
_require_program dd
_require_null_blk
_require_dm_multipath
_require_tracefs
_require_kprobes

# _probes_remove -- the kprobe gone and tracing_on as it was; also on exit
_probes_remove() {
	_kprobes_del "$GROUP" "${PROBES[@]}"
	[ -z "${orig_tracing_on:-}" ] ||
		echo "$orig_tracing_on" > "$BB_TRACEFS/tracing_on"
}

_prep_test "nested quiesce: dm suspend and a second quiesce of the dm queue," \
	"$NR writes held until the resume"

nb=bb_$TID		# the null_blk: the one path
mp=bb_${TID}_mpath	# the dm device's name
_mpath_on_null_blk "$nb" "$mp"
dmdev=$BB_DM_DEV
other=$(for d in /sys/block/dm-*; do
		[ -d "$d/mq" ] && [ "${d##*/}" != "$dmdev" ] && echo "${d##*/}"
	done | paste -sd' ')
[ -z "$other" ] ||
	_skip "request-based dm devices $other: their dm_mq_queue_rq() calls would count"
[ "$(cat "/sys/block/$dmdev/queue/iostats" 2>/dev/null)" = 1 ] ||
	echo 1 > "/sys/block/$dmdev/queue/iostats" ||
	_skip "cannot turn on I/O accounting of $dmdev (stat field 9)"

# the scheduler to switch away from in the "sched" round (modules loaded)
sched=
for s in mq-deadline kyber bfq; do
	_sched_available "$dmdev" "$s" ||
		{ _have_program modprobe && modprobe -q "$s-iosched" 2>/dev/null; }
	_sched_available "$dmdev" "$s" && sched=$s && break
done

orig_tracing_on=$(cat "$BB_TRACEFS/tracing_on")
trap _probes_remove EXIT
if ! fn=$(_kprobes_add "$GROUP" "${PROBES[@]}"); then
	_probes_remove
	_skip "cannot probe $fn: no such function in this kernel (inlined?)"
fi
# counted in kprobe_profile; nothing goes into the trace
echo 0 > "$BB_TRACEFS/tracing_on"
echo 1 > "$BB_TRACEFS/events/$GROUP/enable"

# _watch_progress -- for the watchdog: the step a round is at, progress of
#   the test's own (a dm suspend or a scheduler switch moves no I/O); no
#   redirection to /dev/null (see _watchdog_start: its stderr is /dev/null)
# shellcheck disable=SC2317  # (called by the watchdog)
_watch_progress() {
	cat "$BB_TMP/step"
}

# _step TEXT -- the round is at step TEXT
_step() {
	echo "$*" > "$BB_TMP/step"
}

# _nr_requests_twice -- two quiesce/unquiesce pairs of the dm queue:
#   queue/nr_requests one lower, then back
# shellcheck disable=SC2317  # (called by _held_round)
_nr_requests_twice() {
	local f=/sys/block/$dmdev/queue/nr_requests nr0 nr

	nr0=$(cat "$f") || return 1
	for nr in $((nr0 - 1)) "$nr0"; do
		echo "$nr" > "$f" || return 1
		[ "$(cat "$f")" = "$nr" ] || return 1
	done
}

# _held_round NAME CMD... -- dm suspend, CMD (the second user's quiesce and
#   unquiesce), NR direct writes, the checks while held, dm resume, the
#   checks after it.  False if the round could not be run to its end.
_held_round() {
	local name=$1 c0 c1 c2 io0 io1 n nd nrun i pid st rc bad=0 r w
	local pids=()

	shift
	c0=$(_kprobe_hits "$GROUP" queue_rq)
	io0=$(_completed "$dmdev")
	_step "$name: dm suspend"
	_dmsetup suspend --nolockfs "$mp" || { _fail "$name: cannot suspend $mp"; return 1; }
	_step "$name: the second quiesce"
	if ! "$@"; then
		_fail "$name: the second quiesce of $dmdev ($*) failed"
		_dmsetup resume "$mp"
		return 1
	fi
	# 64 KiB apart: a write next to a waiting request would merge into it
	for i in $(seq "$NR"); do
		dd if=/dev/zero of="/dev/$dmdev" bs=4k count=1 seek=$((i * 16)) \
			oflag=direct conv=notrunc > "$BB_TMP/dd.$name.$i" 2>&1 &
		pids+=($!)
	done
	# every write accounted in flight and every writer asleep on its
	# write, or a writer gone (its write ended while held), or a stall
	while :; do
		n=$(_inflight "$dmdev") nd=0 nrun=0
		for pid in "${pids[@]}"; do
			st=$(_pid_state "$pid") || continue
			[ "$st" = Z ] && continue
			nrun=$((nrun + 1))
			[ "$st" = D ] && nd=$((nd + 1))
		done
		_step "$name: held: $n writes accounted, $nd writers waiting"
		[ "$nrun" -lt "$NR" ] && break
		[ "$n" -ge "$NR" ] && [ "$nd" -eq "$NR" ] && break
		_stalled && break
		sleep 0.1
	done
	c1=$(_kprobe_hits "$GROUP" queue_rq)
	read -r r w < "/sys/block/$dmdev/inflight"
	_log "$name: held: $n writes accounted in flight, $nd of $NR writers" \
	     "waiting, $((c1 - c0)) dm_mq_queue_rq() calls, $((r + w))" \
	     "requests in the driver"
	[ "$nrun" -eq "$NR" ] ||
		_fail "$name: $((NR - nrun)) of $NR writes ended while dm held" \
		      "$dmdev quiesced"
	[ "$c1" -eq "$c0" ] ||
		_fail "$name: dm_mq_queue_rq() called $((c1 - c0)) times while" \
		      "dm held $dmdev quiesced: the second user's unquiesce" \
		      "released the queue"
	[ $((r + w)) -eq 0 ] ||
		_fail "$name: $((r + w)) requests in the driver while dm held" \
		      "$dmdev quiesced"
	_step "$name: dm resume"
	_dmsetup resume "$mp" || { _fail "$name: cannot resume $mp"; return 1; }
	_step "$name: waiting for the writes"
	for i in "${!pids[@]}"; do
		_wait_pid "${pids[$i]}"
		rc=$?
		[ "$rc" -eq 0 ] && continue
		bad=$((bad + 1))
		sed 's/^/# dd: /' "$BB_TMP/dd.$name.$((i + 1))"
	done
	_stalled && return 1
	c2=$(_kprobe_hits "$GROUP" queue_rq)
	io1=$(_completed "$dmdev")
	_log "$name: after the resume: $((NR - bad)) of $NR writes done," \
	     "$((c2 - c1)) dm_mq_queue_rq() calls, $((io1 - io0)) I/Os completed"
	[ "$bad" -eq 0 ] || _fail "$name: $bad of $NR writes failed"
	[ $((c2 - c1)) -ge "$NR" ] ||
		_fail "$name: $((c2 - c1)) dm_mq_queue_rq() calls after the" \
		      "resume for $NR writes: the kprobe misses dm's dispatches"
	[ $((io1 - io0)) -ge "$NR" ] ||
		_fail "$name: $((io1 - io0)) I/Os completed on $dmdev for $NR writes"
	[ "$(_inflight "$dmdev")" -eq 0 ] ||
		_fail "$name: $(_inflight "$dmdev") requests still in flight on" \
		      "$dmdev after the writes"
	return 0
}

ran=0
_watchdog_start "$dmdev" "$nb"
if [ -z "$sched" ]; then
	_skip_later "no I/O scheduler but none on $dmdev: no \"sched\" round"
elif ! _set_sched "$dmdev" "$sched"; then
	_fail "cannot select $sched on $dmdev"
else
	_log "sched: $dmdev under $sched, switched to none while suspended"
	_held_round sched _set_sched "$dmdev" none && ran=$((ran + 1))
fi
if ! _stalled; then
	if _set_sched "$dmdev" none; then
		_log "nr_requests: $(cat "/sys/block/$dmdev/queue/nr_requests")," \
		     "one lower and back, twice while suspended"
		_held_round nr_requests _nr_requests_twice && ran=$((ran + 1))
	else
		_fail "cannot select none on $dmdev"
	fi
fi
_watchdog_stop
_probes_remove
trap - EXIT
_stalled || _skip_if_untested $ran "no round ran"

_show_result
