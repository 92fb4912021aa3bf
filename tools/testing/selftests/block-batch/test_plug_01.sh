#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The plug flush of requests for several queues: one io_uring submission
# batch spans two null_blk devices, fio write+verify.
#
# With no elevator, blk_mq_flush_plug_list() must hand each queue's requests
# to blk_mq_dispatch_queue_requests() (->queue_rqs(), then direct issue) and
# never to blk_mq_dispatch_list(), the per-(hctx, ctx) path that inserts
# them and runs the queue; and no request may land on an hctx dispatch list
# (blk_mq_request_bypass_insert(), under hctx->lock).  Kprobes on those
# functions and on blk_mq_flush_plug_list() (which delimits each flush of
# each task) classify every flush.
# Then the same batch with mq-deadline on one of the two devices: every
# flush must go through blk_mq_dispatch_list() and none through the
# multi-queue path; this also shows that the probes see it when it runs.
#
# Fails on a verify error, a multi-queue flush without an elevator that went
# through blk_mq_dispatch_list(), a request on an hctx dispatch list during
# such a flush, or a multi-queue flush with an elevator in it; skips when no
# plug held requests for both devices (nothing tested) or when the kernel
# has no kprobe events or inlined one of the functions.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

GROUP=bb_plug
PROBES=(
	"flush blk_mq_flush_plug_list from_sched=\$arg2:u8"
	"dqr blk_mq_dispatch_queue_requests depth=\$arg2:u32"
	"dl blk_mq_dispatch_list"
	"bypass blk_mq_request_bypass_insert"
)

_require_root
_require_program fio
_require_program awk
_require_fio_engine io_uring
_require_null_blk
# (mounts tracefs and skips when it is in use; the test traces kprobes)
_require_trace_event block/block_rq_issue
_require_kprobes

# The trace clock in use before the test, restored afterwards: the test
# uses the global clock, so that a task's events stay in order when it
# moves to another CPU in the middle of a flush.
orig_clock=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$BB_TRACEFS/trace_clock")

_probes_remove() {
	echo 0 > "$BB_TRACEFS/tracing_on"
	echo "${orig_clock:-local}" > "$BB_TRACEFS/trace_clock" 2>/dev/null
	_kprobes_del "$GROUP" "${PROBES[@]}"
	echo > "$BB_TRACEFS/trace"
}

_prep_test "plug flushes across two queues, without and with an elevator"

# Timer completions (50 us): with requests completed inline in
# ->queue_rq() (irqmode=0) fio finds its slots free again at once and
# submits one or two at a time, and io_uring plugs only submissions of
# three or more.
a=bb_${TID}_a b=bb_${TID}_b
for d in "$a" "$b"; do
	_nullb_create "$d" irqmode=2 completion_nsec=50000 ||
		_skip "cannot create two null_blk devices"
done

# probes an earlier run left behind (killed) would make the adds fail
_probes_remove
echo global > "$BB_TRACEFS/trace_clock" ||
	_skip "cannot select the global trace clock"
if ! fn=$(_kprobes_add "$GROUP" "${PROBES[@]}"); then
	_probes_remove
	_skip "cannot probe $fn (inlined in this kernel?)"
fi
orig_buf_kb=$(_trace_buf_kb)
echo 8192 > "$BB_TRACEFS/buffer_size_kb"

# _plug_run CASE -- fio write+verify over both devices from one task, in
# io_uring batches of 8 alternating between them (file_service_type
# roundrobin: each submission's plug holds requests for both); the kprobe
# trace into $BB_TMP/trace.CASE
_plug_run() {
	echo > "$BB_TRACEFS/trace"
	echo 1 > "$BB_TRACEFS/events/$GROUP/enable"
	echo 1 > "$BB_TRACEFS/tracing_on"
	fio --name=bb-plug --filename="/dev/$a:/dev/$b" --ioengine=io_uring \
		--direct=1 --rw=randwrite --bs=4k --iodepth=32 \
		--iodepth_batch_submit=8 --iodepth_batch_complete_min=8 \
		--file_service_type=roundrobin --size=16M --numjobs=1 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 > "$BB_TMP/fio.$1.log" 2>&1 &
	_wait_pid $!
	rc=$?
	echo 0 > "$BB_TRACEFS/tracing_on"
	echo 0 > "$BB_TRACEFS/events/$GROUP/enable"
	cat "$BB_TRACEFS/trace" > "$BB_TMP/trace.$1"
	grep -q 'LOST.*EVENTS' "$BB_TMP/trace.$1" &&
		_fail "$1: the trace buffer overflowed: flushes cannot be classified"
	if ! _fio_ok $rc "$BB_TMP/fio.$1.log"; then
		_fail_io "$1: fio write+verify over $a and $b failed"
		return 1
	fi
}

# _plug_classify CASE -- "multi slow single sched bypass_multi bypass_all":
#   flushes (not from schedule()) that dispatched two or more queues through
#   blk_mq_dispatch_queue_requests(), that went through
#   blk_mq_dispatch_list() instead, that dispatched one queue directly;
#   flushes from schedule(); requests bypass-inserted into an hctx dispatch
#   list during a multi-queue flush, and in all.  A flush is what one task
#   does from its blk_mq_flush_plug_list() entry to its next one.
_plug_classify() {
	awk '
	function close_flush(t) {
		if (!(t in open))
			return
		if (fs[t])
			sched++
		else if (dq[t] >= 2) {
			multi++
			bym += by[t]
		} else if (dl[t] > 0)
			slow++
		else if (dq[t] == 1)
			single++
		delete open[t]
	}
	$0 ~ /^ *#/ { next }
	{
		t = $1	# task-pid
		if ($0 ~ / flush: \(/) {
			close_flush(t)
			open[t] = 1
			fs[t] = ($0 ~ /from_sched=[1-9]/)
			dq[t] = dl[t] = by[t] = 0
		} else if ($0 ~ / dqr: \(/) {
			dq[t]++
		} else if ($0 ~ / dl: \(/) {
			dl[t]++
		} else if ($0 ~ / bypass: \(/) {
			by[t]++
			byall++
		}
	}
	END {
		for (t in open)
			close_flush(t)
		printf "%d %d %d %d %d %d\n", multi, slow, single, sched, bym, byall
	}' "$BB_TMP/trace.$1"
}

# _plug_result CASE LABEL -- _plug_classify CASE into multi, slow, single,
#   sched, bym and byall, and log them
_plug_result() {
	read -r multi slow single sched bym byall < <(_plug_classify "$1")
	_log "$2: fio $(grep -m1 -o 'submit *:.*' "$BB_TMP/fio.$1.log" | tr -s ' ')"
	_log "$2: $multi flushes over both queues by ->queue_rqs/direct" \
	     "issue, $slow through blk_mq_dispatch_list(), $single of one" \
	     "queue, $sched from schedule(); $bym requests on an hctx" \
	     "dispatch list during them ($byall in all)"
}

_watchdog_start "$a" "$b"
# 1. no elevator on either device: the multi-queue path
if _plug_run none; then
	_plug_result none none+none
	if [ "$slow" -gt 0 ]; then
		_fail "none+none: $slow plug flushes with no elevator, not from" \
		      "schedule(), went through blk_mq_dispatch_list()"
	fi
	if [ "$bym" -gt 0 ]; then
		_fail "none+none: $bym requests of multi-queue flushes were put on" \
		      "an hctx dispatch list (hctx->lock)"
	fi
	if [ "$multi" -eq 0 ] && [ "$slow" -eq 0 ]; then
		_skip_later "no plug flush held requests for both devices" \
			    "($single of one queue, $sched from schedule())"
	fi
fi
# 2. mq-deadline on one of them: every flush with its requests goes
#    through blk_mq_dispatch_list() (the control of case 1)
if [ "$BB_ERR" -eq 0 ] && ! _stalled; then
	if ! _require_sched "$b" mq-deadline || ! _set_sched "$b" mq-deadline; then
		_fail "cannot select mq-deadline on $b for the control case"
	elif _plug_run elv; then
		_plug_result elv none+mq-deadline
		if [ "$multi" -gt 0 ]; then
			_fail "none+mq-deadline: $multi plug flushes holding" \
			      "elevator requests took the multi-queue path"
		fi
		if [ "$slow" -eq 0 ]; then
			_fail "none+mq-deadline: no flush through" \
			      "blk_mq_dispatch_list() seen: the probes do not" \
			      "see it, so case 1 proves nothing"
		fi
	fi
fi
_watchdog_stop
_probes_remove
echo "${orig_buf_kb:-1408}" > "$BB_TRACEFS/buffer_size_kb"

_show_result
