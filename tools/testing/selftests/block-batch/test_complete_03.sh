#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Completion batches while the elevator is switched.  A completion batch
# (blk_mq_end_request_batch()) finishes its requests through their queue's
# elevator (bfq: ->finish_requests()) and puts their scheduler tags on
# hctx->sched_tags; both belong to the elevator that an elevator switch
# tears down.  The switch freezes the queue, so it waits for the queue
# usage reference of every request, which a batch gives back only after it
# is done with the elevator and the scheduler tags.
#
# Device: a memory-backed null_blk with one poll queue; fio (io_uring,
# --hipri, write + crc32c verify) reaps its completions by polling, so
# they end in batches, in runs one after the other while a loop switches
# the elevator round bfq, mq-deadline and none.  Kprobes count the
# batches, bfq's batched finishes and the switches
# (elv_iosched_store()).
# Bounded: at most SWITCHES switches or BB_STRESS_SECS seconds.  Fails on
# a verify error, a stall (a switch whose freeze never ends: a usage
# reference or a tag that a batch did not give back), a splat (lockdep,
# KASAN), a tag or scheduler tag busy once idle (_check_idle), or no
# switch that started with requests in flight.
# Skips when no switch came between completion batches on both sides, no
# batch went through bfq_finish_requests() during the loop, fewer than
# MIN_SWITCHES switches were done (machine too slow), or the kernel has no
# kprobe events or inlined a probed function.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

SWITCHES=${SWITCHES:-1000}
MIN_SWITCHES=${MIN_SWITCHES:-6}
GROUP=bb_complete3
PROBES=(
	"batch blk_mq_end_request_batch"
	"bfq bfq_finish_requests nr=\$arg2:u32"
	"sw elv_iosched_store"
)

_require_polled_probes block/block_rq_complete

_prep_test "completion batches of polled requests while the elevator is switched"

dev=bb_${TID}
_nullb_create_polled "$dev"
# modules first: a kprobe needs its function loaded
for sched in mq-deadline bfq; do
	_require_sched "$dev" "$sched" || _skip "$sched is not available"
done
_ksym_present bfq_finish_requests ||
	_skip "bfq has no bfq_finish_requests(): no batched finish to switch under"
trap _probe_trace_stop EXIT
_probe_trace_start 4096 "$GROUP" "${PROBES[@]}"

if [ "$BB_ERR" -eq 0 ]; then
	_set_sched "$dev" bfq || _fail "cannot select bfq"
	_probe_trace_on
	_watchdog_start "$dev"
	_stress_spawn switch _sched_switch_loop switch "$SWITCHES" "$dev" \
		mq-deadline none bfq
	# 4 jobs x 4 MiB a run: short runs, the last one ends soon after
	# the loop
	_verify_while switch "$BB_STRESS_PID" "$dev" --size=4M \
		--offset_increment=4M --hipri --iodepth=48 \
		--iodepth_batch_complete_min=8
	_watchdog_stop
	_probe_trace_off
	_log "$BB_RUNS fio verify runs while switching"
	_stress_verdict switches "$MIN_SWITCHES" inflight
fi
if [ "$BB_ERR" -eq 0 ] && ! _stalled; then
	lost=$(_trace_lost)
	# In trace order: the switches, and those with completion batches
	# (ended in fio's tasks: polled) since the switch before and until
	# the next one.
	read -r nsw nbetween nb nbfq < <(awk '
		/^#/ { next }
		/ sw:/ { if (n && before && seen) both++
			 before = seen; seen = 0; n++; next }
		$1 ~ /^(fio|<\.\.\.>)-[0-9]+$/ && / batch:/ { b++; seen = 1 }
		/ bfq:/ { f++ }
		END { if (n && before && seen) both++
		      print n + 0, both + 0, b + 0, f + 0 }' "$BB_TRACEFS/trace")
	_log "$nsw switches traced, $nbetween between completion batches;" \
	     "$nb completion batches ended by fio, $nbfq bfq_finish_requests" \
	     "calls; the trace lost $lost events"
	[ "$nbetween" -gt 0 ] ||
		_skip_later "no switch came between completion batches"
	[ "$nbfq" -gt 0 ] ||
		_skip_later "no completion batch went through bfq_finish_requests()"
	sched=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "/sys/block/$dev/queue/scheduler")
	_check_idle "$sched" "$dev"
fi
_probe_trace_stop
_show_result
