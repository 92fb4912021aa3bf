#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Single-hctx dispatch for schedulers that are not multi-queue aware:
# mq-deadline and bfq set QUEUE_FLAG_SQ_SCHED, and then
# blk_mq_run_hw_queues() runs only the hw queue of the calling CPU
# (blk_mq_get_sq_hctx()), plus any hw queue with requests on its own
# dispatch list.  kyber is multi-queue aware (ELEVATOR_F_MQ_AWARE): every
# hw queue that has requests is run.
#
# Devices: a request-based dm-multipath device with one hw queue per CPU,
# over a null_blk whose requests complete after 5 s.  The dm device is
# suspended, one fio job pinned to each CPU queues requests, and it is
# resumed from CPU 0; workqueue:workqueue_queue_work is traced around the
# resume to count the hw queues run (blk_mq_run_work_fn work structs).
#
# Expected: mq-deadline and bfq: exactly one hw queue run; kyber: one per
# CPU.  Fails if a non-MQ-aware scheduler runs more than one, or kyber only
# one (then the setup did not reach the multi-queue case); skips with fewer
# than 2 CPUs.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

bb_depth=4
dmparam=/sys/module/dm_mod/parameters/dm_mq_nr_hw_queues

_require_root
_require_program fio
_require_program taskset
_require_fio_engine libaio
_require_null_blk
_require_dm_multipath

ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || _skip "needs at least 2 CPUs for several hw queues"
[ -w "$dmparam" ] || _skip "no writable dm_mod parameter dm_mq_nr_hw_queues"
_require_trace_event workqueue/workqueue_queue_work
ev=$BB_TRACEFS/events/workqueue/workqueue_queue_work

_prep_test "hw queues run at unquiesce: one for mq-deadline and bfq, all for kyber"

nb=bb_$TID
mp=bb_${TID}_mpath
orig_nr_hw=$(cat "$dmparam")
_nullb_create "$nb" memory_backed=0 submit_queues="$ncpu" hw_queue_depth=64 \
	irqmode=2 completion_nsec=5000000000 || _skip "cannot create a null_blk device"
echo "$ncpu" > "$dmparam" || _skip "cannot set dm_mq_nr_hw_queues"
_mpath_create "$mp" "$nb"
rc=$?
echo "$orig_nr_hw" > "$dmparam"
[ $rc -eq 0 ] || _skip "cannot create a dm-multipath device on $nb"
dm=$BB_DM_DEV
nhctx=$(ls -d "$BB_DEBUGFS/$dm"/hctx* 2>/dev/null | wc -l)
[ "$nhctx" -eq "$ncpu" ] ||
	_fail "$dm has $nhctx hw queues, expected $ncpu (dm_mq_nr_hw_queues)"

_trace_reset() {
	echo 0 > "$BB_TRACEFS/tracing_on"
	echo 0 > "$ev/enable"
	echo > "$BB_TRACEFS/trace"
}

# _runs SCHED -- suspend, queue requests from every CPU, resume from CPU 0;
# writes "runs cpus" to $BB_TMP/runs.SCHED: the distinct
# blk_mq_run_work_fn works queued during the resume, and their CPUs
_runs() {
	local sched=$1 want=$((ncpu * bb_depth)) pid

	_dmsetup suspend --nolockfs "$mp" || return 1
	fio --name=bb-sqsched --filename="/dev/$dm" --ioengine=libaio \
		--direct=1 --rw=randwrite --bs=4k --iodepth=$bb_depth \
		--numjobs="$ncpu" --number_ios=$bb_depth --size=16M \
		--offset_increment=16M --cpus_allowed="0-$((ncpu - 1))" \
		--cpus_allowed_policy=split > "$BB_TMP/fio.$sched.log" 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		[ "$(_inflight "$dm")" -ge "$want" ] && break
		sleep 0.1
	done
	if [ "$(_inflight "$dm")" -lt "$want" ]; then
		_fail "$sched: only $(_inflight "$dm") of $want requests" \
		      "queued on the suspended $dm"
		_dmsetup resume "$mp"
		_wait_pid $pid
		return 1
	fi
	_trace_reset
	echo 1 > "$ev/enable"
	echo 1 > "$BB_TRACEFS/tracing_on"
	echo "bb-resume-begin" > "$BB_TRACEFS/trace_marker"
	taskset -c 0 dmsetup --noudevsync resume "$mp" > "$BB_TMP/resume.log" 2>&1 ||
		_fail "$sched: dmsetup resume failed: $(cat "$BB_TMP/resume.log")"
	echo "bb-resume-end" > "$BB_TRACEFS/trace_marker"
	echo 0 > "$BB_TRACEFS/tracing_on"
	cat "$BB_TRACEFS/trace" > "$BB_TMP/trace.$sched"
	_trace_reset
	_wait_pid $pid || _fail_io "$sched: fio failed: $(tail -n 3 "$BB_TMP/fio.$sched.log")"
	awk '/bb-resume-begin/ { on = 1; next } /bb-resume-end/ { on = 0 }
		on && /function=blk_mq_run_work_fn / {
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^struct=/) w[$i] = 1
				if ($i ~ /^cpu=/) c[substr($i, 5)] = 1
			}
		}
		END { n = 0; for (k in w) n++; s = ""
		      for (k in c) s = s (s == "" ? "" : ",") k
		      print n, (s == "" ? "-" : s) }' "$BB_TMP/trace.$sched" \
		> "$BB_TMP/runs.$sched"
}

ran=0
_watchdog_start "$dm" "$nb"
for sched in mq-deadline bfq kyber; do
	_stalled && break
	_require_sched "$dm" "$sched" || continue
	_set_sched "$dm" "$sched" || { _fail "cannot select $sched on $dm"; continue; }
	_runs "$sched" || continue
	read -r runs cpus < "$BB_TMP/runs.$sched" || continue
	_log "sched=$sched hctxs=$nhctx runs_at_unquiesce=$runs cpus=$cpus"
	case $sched in
	kyber)
		[ "$runs" -eq "$nhctx" ] ||
			_fail "kyber: $runs of $nhctx hw queues run at unquiesce, expected all" ;;
	*)
		[ "$runs" -eq 1 ] ||
			_fail "$sched: $runs hw queues run at unquiesce," \
			      "expected 1 (QUEUE_FLAG_SQ_SCHED)" ;;
	esac
	ran=$((ran + 1))
done
_watchdog_stop
_skip_if_untested $ran "no scheduler could be tested"

_show_result
