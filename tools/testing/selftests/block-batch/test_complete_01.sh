#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Completion batches of requests with scheduler tags.  A driver's completion
# batch (blk_mq_add_to_batch(), ended by blk_mq_end_request_batch()) now
# takes requests that hold scheduler tags: their elevator data must be
# finished, their scheduler tags and driver tags given back, and bfq must
# finish each run under one lock hold (->finish_requests(), at most 32).
#
# Device: a memory-backed null_blk with one poll queue; fio (io_uring,
# --hipri, write + crc32c verify) reaps completions by polling.  Kprobes
# count the batches and bfq's calls.  For none, mq-deadline and bfq, fails
# when the data does not read back, no completion batch was ended under a
# scheduler, bfq did not finish them through bfq_finish_requests() (more
# than one, never more than 32 requests per call), bfq finished a request
# of the device not exactly once (not checked while another disk uses
# bfq), or a tag or scheduler tag is not back once idle (_check_idle; a
# leak also stalls the queue: the watchdog reports it).
# Skips when polling produced no batch without a scheduler (nothing to
# test), or when the kernel has no kprobe events or inlined a probed
# function.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh
. "$(cd "$(dirname "$0")" && pwd)"/common_complete.sh

GROUP=bb_complete
PROBES=(
	"batch blk_mq_end_request_batch"
	"bfq bfq_finish_requests nr=\$arg2:u32"
	"bfq1 bfq_finish_request"
)

_require_polled_probes block/block_rq_complete

_prep_test "completion batches of polled requests through each scheduler"

dev=bb_${TID}
_nullb_create_polled "$dev"

# Load the schedulers first (modules): a kprobe needs its function loaded.
scheds=none
for sched in mq-deadline bfq; do
	_require_sched "$dev" "$sched" && scheds+=" $sched"
done
# bfq_finish_requests() is bfq's ->finish_requests(), called through a
# pointer: if bfq is loaded and the kernel has no such function, bfq
# finishes the requests of a batch one lock hold each (a failure, reported
# after the other schedulers were tested).
no_bfq_batch=0
if [[ " $scheds " = *" bfq "* ]] && ! _ksym_present bfq_finish_requests; then
	no_bfq_batch=1
	scheds=${scheds% bfq}
fi
probes=()
for p in "${PROBES[@]}"; do
	case ${p%% *} in
	bfq*) [[ " $scheds " = *" bfq "* ]] || continue ;;
	esac
	probes+=("$p")
done
trap _probe_trace_stop EXIT
_probe_trace_start 4096 "$GROUP" "${probes[@]}"

# other disks under bfq: their bfq_finish_request() calls would count too
other_bfq=$(grep -l '\[bfq\]' /sys/block/*/queue/scheduler 2>/dev/null |
	sed 's|^/sys/block/||; s|/queue/scheduler$||' | grep -vx "$dev" | paste -sd' ')

tested=0 control=0
for sched in $scheds; do
	[ "$BB_ERR" -eq 0 ] || break
	_set_sched "$dev" "$sched" || { _fail "cannot select $sched"; continue; }
	read -r ios0 merges0 < <(_stat_ios "$dev")
	_probe_trace_on
	_watchdog_start "$dev"
	_fio_verify "$dev" io_uring --hipri --iodepth=48 --size=16M \
		--offset_increment=16M --iodepth_batch_complete_min=8 ||
		_fail_io "$sched: fio write+verify with polled completions failed"
	_watchdog_stop
	_probe_trace_off
	read -r ios merges < <(_stat_ios "$dev")
	_stalled && break
	ios=$((ios - ios0)) merges=$((merges - merges0))
	lost=$(_trace_lost)
	# "TASK-PID [CPU] FLAGS TIME: EVENT: ...": batches in fio's own tasks
	# (<...> where the trace lost the task's name), where the poller ends
	# the batch it reaped, in task context (FLAGS' third character,
	# hardirq/softirq, is ".")
	nb=$(awk '/^#/ { next }
		  length($3) >= 4 && substr($3, 3, 1) == "." &&
		  $1 ~ /^(fio|<\.\.\.>)-[0-9]+$/ && / batch:/ { b++ }
		  END { print b + 0 }' "$BB_TRACEFS/trace")
	read -r nbfq nrq maxnr n1 < <(_bfq_finish_counts)
	_log "$sched: $ios requests completed, $merges merges," \
	     "$nb completion batches ended by fio, $nbfq bfq_finish_requests" \
	     "calls for $nrq requests (at most $maxnr)," \
	     "$n1 bfq_finish_request calls"
	if [ "$sched" = none ]; then
		control=$nb
		[ "$nb" -gt 0 ] || break
	else
		[ "$nb" -gt 0 ] ||
			_fail "$sched: no completion batch: requests with" \
			      "scheduler tags were completed one by one"
		if [ "$sched" = bfq ]; then
			_bfq_batch_sizes bfq "$nbfq" "$maxnr"
			[ "$maxnr" -gt 1 ] ||
				_fail "bfq: never more than one request per" \
				      "bfq_finish_requests() call"
			if [ -n "$other_bfq" ]; then
				_skip_later "bfq: $other_bfq also under bfq:" \
					    "finished requests not counted"
			elif [ "$lost" -gt 0 ]; then
				_skip_later "bfq: the trace lost $lost events:" \
					    "finished requests not counted"
			else
				_bfq_finished_once bfq "$dev" "$ios" "$merges" $((nrq + n1))
			fi
		elif [ "$nbfq" -gt 0 ]; then
			_fail "$sched: bfq_finish_requests() called $nbfq times"
		fi
		tested=$((tested + 1))
	fi
	_check_idle "$sched" "$dev"
done
_probe_trace_stop

[ $no_bfq_batch -eq 0 ] ||
	_fail "bfq has no bfq_finish_requests(): it finishes a completion" \
	      "batch one request per scheduler lock hold"
[ "$control" -gt 0 ] || _stalled || [ "$BB_ERR" -ne 0 ] ||
	_skip "no completion batch without a scheduler: polling batched nothing"
_skip_if_untested $tested "neither mq-deadline nor bfq could be tested"
_show_result
