#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Completion batches that hold requests of two request queues, through bfq.
# blk_mq_end_request_batch() hands an elevator's ->finish_requests() runs
# of consecutive requests of one queue: a batch with requests of two queues
# must be split where the queue changes, each run finished by its own
# queue's elevator (bfq: its own bfq_data and lock), and the scheduler
# tags put back into each queue's own sched_tags.
#
# Device: two namespaces of one NVMe controller, named by
# BB_NVME_NAMESPACES ("nvme0n1 nvme0n2"; their data is destroyed).  They
# share the controller's queues, so its interrupt handler ends one
# completion batch with the
# requests of both request queues; a null_blk cannot do that (io_uring's
# io_do_iopoll() stops at the first poll that added to its batch, and a
# ->poll() reaps one hardware queue of one request queue).  fio (io_uring,
# one job list over both namespaces, write + crc32c verify) under bfq on
# both.  Kprobes record the queue of the first and the last request of
# each batch, and of the first request of each bfq_finish_requests() call
# (a request's queue is its first field, rq->q); bfq_init_queue() names
# each namespace's queue.
# Fails when the data does not read back, bfq did not finish each
# namespace's requests exactly once (counted by queue: a run handed to the
# first request's elevator whole, across the queue change, counts the
# other namespace's requests to the first), a call finished more than 32,
# or a tag or scheduler tag of either namespace is not back once idle
# (_check_idle).
# Skips when no batch held requests of both queues (nothing to test),
# BB_NVME_NAMESPACES does not name two namespaces of one controller, the
# trace lost events, or the kernel has no kprobe events or inlined a
# probed function.  A namespace in use is refused.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh
. "$(cd "$(dirname "$0")" && pwd)"/common_complete.sh

GROUP=bb_complete2
# pointers fetched with "+0(...)": a 64-bit kernel (struct rq_list's tail
# at +8 in struct io_comp_batch)
PROBES=(
	"batch blk_mq_end_request_batch hq=+0(+0(\$arg1)):x64 tq=+0(+8(\$arg1)):x64"
	"bfq bfq_finish_requests nr=\$arg2:u32 q=+0(+0(\$arg1)):x64"
	"bfq1 bfq_finish_request q=+0(\$arg1):x64"
	"init bfq_init_queue q=\$arg1:x64"
)

_require_root
_require_program fio
_require_program awk
_require_fio_engine io_uring
_require_debugfs
# (mounts tracefs and skips when it is in use; the test traces kprobes)
_require_trace_event block/block_rq_complete
_require_kprobes
[ "$(getconf LONG_BIT 2>/dev/null || echo 64)" = 64 ] ||
	_skip "the probes fetch 64-bit pointers"

read -r dev_a dev_b dev_c <<< "${BB_NVME_NAMESPACES:-}"
[ -n "$dev_b" ] && [ -z "$dev_c" ] ||
	_skip "BB_NVME_NAMESPACES does not name two NVMe namespaces" \
	      "(\"nvmeXnY nvmeXnZ\", of one controller; their data is destroyed)"
dev_a=${dev_a#/dev/} dev_b=${dev_b#/dev/}
_require_unused_disk "$dev_a"
_require_unused_disk "$dev_b"
ctrl_a=$(_nvme_ns_ctrls "$dev_a" | head -n1)
[ -n "$ctrl_a" ] && [ "$ctrl_a" = "$(_nvme_ns_ctrls "$dev_b" | head -n1)" ] ||
	_skip "$dev_a and $dev_b are not namespaces of one NVMe controller"
_require_sched "$dev_a" bfq || _skip "bfq is not available"
_ksym_present bfq_finish_requests ||
	_skip "bfq has no bfq_finish_requests(): no batched finish to split"

_prep_test "completion batches of two NVMe namespaces ($dev_a, $dev_b) through bfq"

orig_a=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "/sys/block/$dev_a/queue/scheduler")
orig_b=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "/sys/block/$dev_b/queue/scheduler")
for d in "$dev_a" "$dev_b"; do
	_set_sched "$d" none || _fail "$d: cannot select none"
done
trap _probe_trace_stop EXIT
_probe_trace_start 4096 "$GROUP" "${PROBES[@]}"

# Each namespace's request queue, from bfq_init_queue() as bfq takes it.
_probe_trace_on
for d in "$dev_a" "$dev_b"; do
	_set_sched "$d" bfq || _fail "$d: cannot select bfq"
done
_probe_trace_off
read -r q_a q_b < <(awk '/ init:/ { sub(/.* q=/, ""); printf "%s ", $1 }' \
		    "$BB_TRACEFS/trace")
if [ -z "$q_b" ] || [ "$q_a" = "$q_b" ]; then
	_fail "bfq_init_queue() did not name both queues (got '$q_a' '$q_b')"
fi

if [ "$BB_ERR" -eq 0 ]; then
	read -r ios_a0 merges_a0 < <(_stat_ios "$dev_a")
	read -r ios_b0 merges_b0 < <(_stat_ios "$dev_b")
	_probe_trace_on
	_watchdog_start "$dev_a" "$dev_b"
	# 4 jobs x 4 MiB on each namespace (8 MiB a job, round the two)
	_fio_verify "$dev_a:$dev_b" io_uring --iodepth=32 --size=8M \
		--offset_increment=4M ||
		_fail_io "fio write+verify on $dev_a and $dev_b failed"
	_watchdog_stop
	_probe_trace_off
fi
if [ "$BB_ERR" -eq 0 ] && ! _stalled; then
	read -r ios_a merges_a < <(_stat_ios "$dev_a")
	read -r ios_b merges_b < <(_stat_ios "$dev_b")
	ios_a=$((ios_a - ios_a0)) merges_a=$((merges_a - merges_a0))
	ios_b=$((ios_b - ios_b0)) merges_b=$((merges_b - merges_b0))
	lost=$(_trace_lost)
	# batches, and those whose first and last request are of two queues
	read -r nb nmixed < <(awk '
		/ batch:/ { b++; h = $0; t = $0
			    sub(/.* hq=/, "", h); sub(/ .*/, "", h)
			    sub(/.* tq=/, "", t); sub(/ .*/, "", t)
			    if (h != t) m++ }
		END { print b + 0, m + 0 }' "$BB_TRACEFS/trace")
	read -r nbfq nrq maxnr n1 < <(_bfq_finish_counts)
	read -r nbfq_a nrq_a _ n1_a < <(_bfq_finish_counts "$q_a")
	read -r nbfq_b nrq_b _ n1_b < <(_bfq_finish_counts "$q_b")
	_log "$nb completion batches, $nmixed with requests of both queues" \
	     "first and last; $nbfq bfq_finish_requests calls for $nrq" \
	     "requests (at most $maxnr), $n1 bfq_finish_request calls"
	_log "$dev_a: $ios_a requests completed, $merges_a merges," \
	     "$((nrq_a + n1_a)) finished by bfq ($nrq_a in $nbfq_a batched calls)"
	_log "$dev_b: $ios_b requests completed, $merges_b merges," \
	     "$((nrq_b + n1_b)) finished by bfq ($nrq_b in $nbfq_b batched calls)"
	_bfq_batch_sizes bfq "$nbfq" "$maxnr"
	if [ "$lost" -gt 0 ]; then
		_skip_later "the trace lost $lost events: finished requests not counted"
	else
		_bfq_finished_once "bfq: $dev_a" "$dev_a" "$ios_a" "$merges_a" \
			$((nrq_a + n1_a))
		_bfq_finished_once "bfq: $dev_b" "$dev_b" "$ios_b" "$merges_b" \
			$((nrq_b + n1_b))
		[ $((nrq_a + nrq_b)) -eq "$nrq" ] ||
			_fail "bfq_finish_requests() finished $nrq requests," \
			      "$((nrq_a + nrq_b)) of them on $dev_a and $dev_b"
	fi
	[ "$nmixed" -gt 0 ] || [ "$BB_ERR" -ne 0 ] ||
		_skip_later "no completion batch held requests of both queues" \
			    "($nb batches): nothing to split"
fi
_probe_trace_stop
_stalled || _check_idle bfq "$dev_a" "$dev_b"
_stalled || for d in "$dev_a:$orig_a" "$dev_b:$orig_b"; do
	_set_sched "${d%%:*}" "${d#*:}" || _fail "${d%%:*}: cannot select ${d#*:} again"
done
_show_result
