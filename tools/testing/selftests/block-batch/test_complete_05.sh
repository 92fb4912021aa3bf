#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Passthrough requests in polled completion batches, through bfq.  A run
# of requests that blk_mq_end_request_batch() hands bfq_finish_requests()
# stops at a request without scheduler data (no RQF_USE_SCHED): an NVMe
# passthrough command has a scheduler tag but never went through bfq.
#
# Device: the NVMe namespace named by BB_NVME_DEV (only read), of a
# controller with a poll queue (booted with nvme.poll_queues=1: the
# queue maps are set when the driver binds).  fio runs two jobs at once on
# that poll queue: reads
# through io_uring --hipri on the block device under bfq, and NVMe reads
# through io_uring_cmd --hipri on its generic character device (ngXnY).
# A poll reaps every completion on the queue into its caller's batch, so
# batches hold both.  Merging is off (nomerges 2) and passthrough I/O out
# of the disk's statistics (iostats_passthrough 0), so that the reads the
# disk completed are exactly the requests bfq must finish.  Kprobes:
# blk_mq_end_request_batch(), bfq_finish_requests() (nr=, and the queue of
# its first request), bfq_finish_request() (its queue), bfq_init_queue()
# (names the namespace's queue as bfq is selected), and
# nvme_uring_cmd_end_io(), whose third argument is the batch when a
# passthrough command ends in one (an ->end_io callback, never inlined).
# Fails when bfq did not finish each read of the namespace exactly once
# (a passthrough command counted in a run is one too many), a call
# finished more than 32, fio failed, or a tag is not back once idle.
# Skips without an NVMe namespace with a poll queue, fio's io_uring_cmd
# engine, bfq or kprobes, when the trace lost events, and when no
# passthrough command came after a bfq run of its batch.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh
. "$(cd "$(dirname "$0")" && pwd)"/common_complete.sh

GROUP=bb_complete5
# pointers fetched with "+0(...)": a 64-bit kernel (a request's queue is
# its first field)
PROBES=(
	"batch blk_mq_end_request_batch"
	"bfq bfq_finish_requests nr=\$arg2:u32 q=+0(+0(\$arg1)):x64"
	"bfq1 bfq_finish_request q=+0(\$arg1):x64"
	"init bfq_init_queue q=\$arg1:x64"
	"pt nvme_uring_cmd_end_io blob=\$arg3:x64"
)
IOS=${IOS:-4096}

_require_root
_require_program fio
_require_program awk
_require_fio_engine io_uring
_require_fio_engine io_uring_cmd
_require_debugfs
_require_trace_event block/block_rq_complete
_require_kprobes
[ "$(getconf LONG_BIT 2>/dev/null || echo 64)" = 64 ] ||
	_skip "the probes fetch 64-bit pointers"

[ -n "${BB_NVME_DEV:-}" ] ||
	_skip "BB_NVME_DEV names no NVMe namespace"
ns=${BB_NVME_DEV#/dev/}
_require_unused_disk "$ns"
ng=/dev/ng${ns#nvme}
[ -c "$ng" ] || _skip "$ns has no generic character device $ng"
[ "$(cat "/sys/block/$ns/queue/io_poll" 2>/dev/null)" = 1 ] ||
	_skip "$ns has no poll queue (boot with nvme.poll_queues=1)"
_require_sched "$ns" bfq || _skip "bfq is not available"
_ksym_present bfq_finish_requests ||
	_skip "bfq has no bfq_finish_requests(): no batched finish"

_prep_test "passthrough commands in polled completion batches through bfq"

qd=/sys/block/$ns/queue
orig_sched=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$qd/scheduler")
orig_nomerges=$(cat "$qd/nomerges")
orig_ptstats=$(cat "$qd/iostats_passthrough" 2>/dev/null)
# _restore -- the namespace's settings as they were; also on exit
_restore() {
	_set_sched "$ns" "$orig_sched" || _fail "$ns: cannot select $orig_sched again"
	echo "$orig_nomerges" > "$qd/nomerges"
	[ -z "$orig_ptstats" ] || echo "$orig_ptstats" > "$qd/iostats_passthrough"
	orig_sched=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$qd/scheduler")
}
trap '_probe_trace_stop; _restore' EXIT
echo 2 > "$qd/nomerges" || _fail "cannot turn off merging on $ns"
[ -z "$orig_ptstats" ] || echo 0 > "$qd/iostats_passthrough" ||
	_fail "cannot leave passthrough I/O out of $ns's statistics"
_set_sched "$ns" none || _fail "cannot select none on $ns"
_probe_trace_start 4096 "$GROUP" "${PROBES[@]}"
# the namespace's request queue, from bfq_init_queue() as bfq takes it
_probe_trace_on
_set_sched "$ns" bfq || _fail "cannot select bfq on $ns"
_probe_trace_off
q=$(awk '/ init:/ { q = $NF } END { print q }' "$BB_TRACEFS/trace")
[ -n "$q" ] || _fail "bfq_init_queue() did not name $ns's queue"

if [ "$BB_ERR" -eq 0 ]; then
	read -r ios0 merges0 < <(_stat_ios "$ns")
	_probe_trace_on
	_watchdog_start "$ns"
	# (--hipri is an engine option: after --ioengine; the character
	# device takes no O_DIRECT)
	fio --rw=randread --bs=4k --iodepth=16 --number_ios="$IOS" --size=32M \
		--name=blk --ioengine=io_uring --hipri --direct=1 \
		--filename="/dev/$ns" \
		--name=pt --ioengine=io_uring_cmd --cmd_type=nvme --hipri \
		--filename="$ng" > "$BB_TMP/fio.log" 2>&1 &
	_wait_pid $!
	_fio_ok $? "$BB_TMP/fio.log" || _fail_io "fio on $ns and $ng"
	_watchdog_stop
	_probe_trace_off
fi
if [ "$BB_ERR" -eq 0 ] && ! _stalled; then
	read -r ios merges < <(_stat_ios "$ns")
	ios=$((ios - ios0)) merges=$((merges - merges0))
	lost=$(_trace_lost)
	# per task (a polled batch ends in the poller's context): batches,
	# passthrough commands ended in a batch, and those that came after a
	# bfq_finish_requests() call of their batch (where a run must stop)
	read -r nb npt nafter < <(awk '
		/^#/ { next }
		/ batch:/ { b++; seen[$1] = 0; next }
		/ bfq:/ { seen[$1] = 1; next }
		/ pt:/ && !/blob=0x0$/ { p++; if (seen[$1] == 1) { a++; seen[$1] = 2 } }
		END { print b + 0, p + 0, a + 0 }' "$BB_TRACEFS/trace")
	read -r nbfq nrq maxnr n1 < <(_bfq_finish_counts "${q#q=}")
	_log "$nb completion batches, $npt passthrough commands ended in" \
	     "them, $nafter of those after a bfq run of their batch"
	_log "$ns: $ios requests completed, $merges merges, $((nrq + n1))" \
	     "finished by bfq ($nrq in $nbfq batched calls, at most $maxnr)"
	_bfq_batch_sizes bfq "$nbfq" "$maxnr"
	if [ "$lost" -gt 0 ]; then
		_skip_later "the trace lost $lost events: finished requests not counted"
	else
		# no merges: each read once, no more
		_bfq_finished_once "bfq: $ns" "$ns" "$ios" 0 $((nrq + n1))
		[ "$nafter" -gt 0 ] || [ "$BB_ERR" -ne 0 ] ||
			_skip_later "no passthrough command came after a bfq" \
				    "run of its completion batch ($nb batches," \
				    "$npt passthrough commands in them)"
	fi
fi
_probe_trace_stop
_stalled || _check_idle bfq "$ns"
_stalled || _restore
_show_result
