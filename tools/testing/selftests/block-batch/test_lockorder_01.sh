#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bfq's lock against q->queue_lock, in both orders.  bfq runs the hw queues
# with its lock held (bfq_schedule_dispatch(): a completion that leaves none
# of its requests in the driver, or its idle timer); v7.3's
# blk_mq_run_hw_queue() takes q->queue_lock when it finds the queue quiesced.
# blk-cgroup takes bfq's lock inside q->queue_lock (bfq_pd_offline() on the
# switch away from bfq), and so do ioc_clear_queue() -> bfq_exit_icq() and
# bfq_end_wr_async() (bfq's low_latency turned off).
# Device: bfq on dm-multipath over a null_blk with 50 ms completions; dm's
# default 2048 tags (with few, a dispatched request waits for a tag and bfq
# counts it in the driver).  A cycle, under fio writes: select bfq, one
# buffered read by the loop (its io context), bfq's low_latency off and on
# again, then SUSPENDS times: wait for
# requests in flight, dm suspend (quiesce; they complete, fio's next writes
# wait in bfq), resume; switch to none.  Kprobes count bfq's runs of the hw
# queues of a quiesced queue (caller read from the stack: x86) and the
# bfq_pd_offline()/bfq_exit_icq()/bfq_end_wr_async() calls.
# Fails on a lockdep report ("possible circular locking dependency", any
# splat: _check_dmesg) or a stall.  Skips when either order was not driven,
# fewer than MIN_CYCLES cycles ran, a device, kprobe or tool is missing, or
# lockdep is not proving locking (and fails when lockdep turned itself off).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

CYCLES=${CYCLES:-50}
MIN_CYCLES=${MIN_CYCLES:-3}
SUSPENDS=${SUSPENDS:-3}	# dm suspend/resume pairs per cycle
GROUP=bb_lockorder
# a probe on a function's first instruction: its first argument is $arg1,
# the return address into its caller $stack0
PROBES=(
	"qon blk_mq_quiesce_queue q=\$arg1:x64"
	"qonnw blk_mq_quiesce_queue_nowait q=\$arg1:x64"
	"qoff blk_mq_unquiesce_queue q=\$arg1:x64"
	"run blk_mq_run_hw_queues q=\$arg1:x64 caller=\$stack0:symstr"
	"offline bfq_pd_offline"
	"exiticq bfq_exit_icq"
	"endwr bfq_end_wr_async"
)

_require_root
_require_program fio
_require_program awk
_require_fio_engine io_uring
_require_null_blk
_require_dm_multipath
_require_lockdep
case $(uname -m) in
x86_64|i?86) ;;
*) _skip "the caller of blk_mq_run_hw_queues() is read as \$stack0: x86 only" ;;
esac
# (mounts tracefs and skips when it is in use; the test traces kprobes)
_require_trace_event block/block_rq_complete
_require_kprobes

_prep_test "bfq's lock and the queue lock: dm suspend/resume and scheduler" \
	"switches under fio writes, up to $CYCLES cycles"

nb=bb_$TID		# the null_blk: the one path
mp=bb_${TID}_mpath	# the dm device's name
# fio writes without verify (see _mpath_on_null_blk).  Completions by
# timer, slow, so that requests are in flight when the queue is quiesced
# and fio submits more meanwhile; tags for all of fio's writes (dm's
# clones).
_mpath_on_null_blk "$nb" "$mp" hw_queue_depth=256 irqmode=2 \
	completion_nsec=50000000
dmdev=$BB_DM_DEV
# bfq is loaded before the probes of its functions are added
_require_sched "$dmdev" bfq || _skip "bfq is not available"
# every buffered read of a new page is one request of the reader
echo 0 > "/sys/block/$dmdev/queue/read_ahead_kb" ||
	_skip "cannot turn off read-ahead on $dmdev"
other_bfq=$(grep -l '\[bfq\]' /sys/block/*/queue/scheduler 2>/dev/null |
	sed 's|^/sys/block/||; s|/queue/scheduler$||' | grep -vx "$dmdev" | paste -sd' ')
[ -z "$other_bfq" ] || _skip "$other_bfq already under bfq: its calls would count"

_ksym_present bfq_pd_offline ||
	_skip "no bfq_pd_offline() to probe: bfq without CONFIG_BFQ_GROUP_IOSCHED"
trap _probe_trace_stop EXIT
_probe_trace_start 4096 "$GROUP" "${PROBES[@]}"

# _cycle_loop NAME -- the cycles, until the stress bounds say stop; the
#   loop's own pid in $BB_TMP/pid.NAME (the scheduler switches run in it)
_cycle_loop() {
	_stress_begin "$1" "$CYCLES"
	echo "$BASHPID" > "$BB_TMP/pid.$1"
	exec 3< "/dev/$dmdev" || return 1
	while _stress_continue; do
		_set_sched "$dmdev" bfq ||
			{ echo "# $TID: cannot select bfq on $dmdev"; return 1; }
		# a request of this task: an io context with an icq of bfq's,
		# which the switch to none below tears down (ioc_clear_queue())
		read -r -N 4096 -u 3 _ 2>/dev/null
		# the queue lock, then bfq's lock: bfq_end_wr_async(), under
		# fio's writes
		echo 0 > "/sys/block/$dmdev/queue/iosched/low_latency" &&
			echo 1 > "/sys/block/$dmdev/queue/iosched/low_latency" ||
			{ echo "# $TID: cannot toggle bfq's low_latency"; return 1; }
		_stress_step "$(_inflight_soon "$dmdev")"
		# bfq's lock, then the queue lock: the last completion under
		# the quiesce, or bfq's idle timer, with fio's writes in bfq
		for _ in $(seq "$SUSPENDS"); do
			_inflight_soon "$dmdev" > /dev/null
			_dmsetup suspend --nolockfs "$mp" || return 1
			_dmsetup resume "$mp" || return 1
		done
		# the queue lock, then bfq's lock: bfq_pd_offline(),
		# bfq_exit_icq()
		_set_sched "$dmdev" none ||
			{ echo "# $TID: cannot select none on $dmdev"; return 1; }
	done
	exec 3<&-
	_stress_end
}

_watchdog_start "$dmdev" "$nb"
_probe_trace_on
_stress_spawn cycle _cycle_loop cycle
# 4 jobs of 16 writes in flight, 50 ms each: about 3 s a run
_verify_while cycle "$BB_STRESS_PID" "$dmdev" --verify=0 --do_verify=0 \
	--size=4M --offset_increment=4M
_probe_trace_off
_watchdog_stop
_log "$BB_RUNS fio runs"

if _stress_verdict "cycles" "$MIN_CYCLES" inflight; then
	pid=$(cat "$BB_TMP/pid.cycle" 2>/dev/null)
	lost=$(_trace_lost)
	# "TASK-PID [CPU] FLAGS TIME: EVENT: (FUNCTION+0x0/SIZE) ARGS": the
	# queues quiesced now (by their q=), bfq's runs of the hw queues
	# (caller in bfq) and those that found their queue quiesced, the
	# policy offlines, the icq exits in the switching task
	read -r nq nrun nrunq noff nicq nendwr < <(awk -v pid="$pid" '
		function arg(k,   v) {
			v = $0; sub(".* " k "=", "", v); sub(/ .*/, "", v)
			return v
		}
		/^#/ { next }
		{ p = $1; sub(/.*-/, "", p) }
		/ qon(nw)?: / { q[arg("q")] = 1; nq++; next }
		/ qoff: / { q[arg("q")] = 0; next }
		/ run: / && /caller="?bfq_/ { r++; if (q[arg("q")]) rq++; next }
		/ offline: / { o++; next }
		/ exiticq: / && p == pid { i++; next }
		/ endwr: / { w++ }
		END { print nq + 0, r + 0, rq + 0, o + 0, i + 0, w + 0 }' "$BB_TRACEFS/trace")
	_log "$nq quiesces; bfq ran the hw queues $nrun times, $nrunq of them" \
	     "while the queue was quiesced (with bfq's lock held);" \
	     "$noff bfq_pd_offline() and $nicq bfq_exit_icq() calls" \
	     "under the queue lock (switches away from bfq)," \
	     "$nendwr bfq_end_wr_async() calls (low_latency off)" \
	     "$([ "$lost" -eq 0 ] || echo "; the trace lost $lost events")"
	if [ "$nrunq" -eq 0 ]; then
		_skip_later "no run of the hw queues by bfq found the queue" \
			    "quiesced in $BB_CYCLES cycles ($nrun runs by bfq):" \
			    "bfq's lock -> queue lock not driven"
	fi
	if [ $((noff + nicq)) -eq 0 ]; then
		_skip_later "no bfq_pd_offline() or bfq_exit_icq() in" \
			    "$BB_CYCLES switches away from bfq: queue lock ->" \
			    "bfq's lock not driven"
	fi
	[ "$nendwr" -gt 0 ] ||
		_skip_later "no bfq_end_wr_async() call in $BB_CYCLES" \
			    "low_latency toggles"
fi
_probe_trace_stop
trap - EXIT

_show_result
