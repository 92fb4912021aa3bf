#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No reference left behind by bfq's batched finish.  bfq now
# finishes the requests of a completion batch in bfq_finish_requests():
# each request drops the reference it holds on its bfq_queue there.  A put
# skipped, or done on another request's queue, leaks a bfq_queue, and a
# bfq_queue pins its bfq_group, whose blkg pins its cgroup: once removed,
# that cgroup stays dying for good (cgroup.stat nr_dying_descendants).
# Each request also holds a reference to its task's io_context, which
# bfq_put_rq_icq() drops there: one put for the wrong request (another
# request's, already put) leaks an io_context, which nothing else sees.
# A kprobe on put_io_context() reads each io_context's count before the
# put; once its processes have exited (the probes record until the
# cgroups are freed: a task puts its io_context after its parent's wait
# may return), every io_context put in them must have had its last put,
# the one that finds a count of 1.  (Slab object counts would show both
# leaks too, but a kernel with SLUB_TINY, as one built from tinyconfig,
# counts no slab objects in /proc/slabinfo.)
#
# Device: a null_blk that keeps no data, one submit and one poll queue,
# under bfq without idling (slice_idle 0).  Six short-lived fio processes
# (io_uring, --hipri: completions reaped by polling, in batches), each in
# its own child cgroup of a parent cgroup of the test, read and write
# their own range; once they have exited, the child cgroups are removed
# and the device switches to none.
# Fails when fio fails or stalls, when an io_context put in fio's tasks
# did not get its last put by the time they exited, when removed child
# cgroups stay dying through 60 looks a second apart that free none of
# them (a blkg is held: a bfq_queue, or another reference to it, leaked;
# else they are freed at once), or when a tag is not back once idle
# (_check_idle).
# Skips when the kernel has no cgroup2 io controller, no kprobe events or
# no bfq_finish_requests(), when polling made no batched finish through
# bfq, when the trace lost events or shows no io_context put in fio's
# tasks, or when the I/O was not charged to the child cgroups.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

GROUP=bb_complete4
# put_io_context(), exported, with the count (its first member) before the
# put; exit_io_context(), called from do_exit() in another file, whose
# last put is a call (a tail call at -Os) that the first probe sees
PROBES=("bfq bfq_finish_requests nr=\$arg2:u32"
	"ioc put_io_context ioc=\$arg1:x64 ref=+0(\$arg1):s64"
	"iox exit_io_context")
NPROCS=6
FREE_SECS=60

_require_polled_probes block/block_rq_complete
trap '_probe_trace_stop; _cg_cleanup' EXIT
_require_cgroup_io

# _cg_dying CG -- the removed descendants of cgroup CG not yet freed
_cg_dying() {
	awk '$1 == "nr_dying_descendants" { print $2 }' "$1/cgroup.stat"
}

_prep_test "bfq's batched finishes from $NPROCS short-lived processes in" \
	"cgroups: no cgroup left dying"

dev=bb_${TID}
# Not memory backed: the test needs no data back.
_nullb_create_polled "$dev" memory_backed=0 submit_queues=1
# bfq is loaded before the probe of its function is added
_require_sched "$dev" bfq || _skip "bfq is not available"
devno=$(cat "/sys/block/$dev/dev")
_probe_trace_start 4096 "$GROUP" "${PROBES[@]}"

parent=$BB_CG_ROOT/bb_$TID
_cg_make "$parent"
echo "+io" > "$parent/cgroup.subtree_control" ||
	_skip "cannot enable the io controller below $parent"
cgs=()
for i in $(seq "$NPROCS"); do
	_cg_make "$parent/p$i"
	cgs+=("$parent/p$i")
done
dying0=$(_cg_dying "$parent")
_set_sched "$dev" bfq || _fail "cannot select bfq"
# No idling for the next request of a queue or group: bfq would idle
# between the cgroups' queues, and the test needs batches, not fairness.
echo 0 > "/sys/block/$dev/queue/iosched/slice_idle" ||
	_fail "cannot set bfq's slice_idle to 0"

# _cg_fio CG N -- fio from inside cgroup CG, one process, the Nth 2 MiB of
#   the device
_cg_fio() {
	(
		echo "$BASHPID" > "$1/cgroup.procs" || exit 1
		exec fio --name=bb-leak --filename="/dev/$dev" \
			--ioengine=io_uring --hipri --direct=1 --rw=randrw \
			--bs=4k --iodepth=16 --iodepth_batch_complete_min=4 \
			--size=2M --offset=$(($2 * 2))M \
			> "$BB_TMP/fio.$2.log" 2>&1
	)
}

if [ "$BB_ERR" -eq 0 ]; then
	_probe_trace_on
	_watchdog_start "$dev"
	pids=()
	for i in $(seq "$NPROCS"); do
		_cg_fio "${cgs[$((i - 1))]}" "$i" &
		pids+=($!)
	done
	for i in $(seq "$NPROCS"); do
		_wait_pid "${pids[$((i - 1))]}"
		_fio_ok $? "$BB_TMP/fio.$i.log" ||
			_fail_io "fio $i in ${cgs[$((i - 1))]##*/} failed"
	done
	_watchdog_stop
fi
# After a stall nothing may freeze the queue (scheduler switch, bfq exit).
_stalled && _show_result

charged=0
for cg in "${cgs[@]}"; do
	grep -q "^$devno " "$cg/io.stat" && charged=$((charged + 1))
done
# The fio subshells have exited and been reaped: the cgroups are empty.
# The probes still record: do_exit() puts a task's io_context after it
# has told its parent, so the last put may come after the wait.
_cg_remove_empty "${cgs[@]}"
# bfq's exit frees what bfq itself still holds: what stays is leaked.
_set_sched "$dev" none || _fail "cannot switch from bfq to none"
# Progress, not time: every cgroup freed restarts the count of looks, so
# a slow machine that frees them one by one is waited for; a leak frees
# none of the rest.
t0=$(_now)
still=0 last=
while [ "$still" -lt "$FREE_SECS" ]; do
	dying=$(_cg_dying "$parent")
	[ "$dying" -le "$dying0" ] && break
	[ "$dying" = "$last" ] && still=$((still + 1)) || still=0
	last=$dying
	sleep 1
done
secs=$(($(_now) - t0))
_probe_trace_off

# batched finishes in fio's tasks (<...> where the trace lost the name);
# the io_contexts put there, and those of them whose last put (in any
# task) did not find a count of 1: still referenced after their
# processes exited; and the exit_io_context() calls of fio's tasks that
# a put in the same task followed (none: the put is not seen there)
lost=$(_trace_lost)
missed=$(_kprobe_misses "$GROUP" "${PROBES[@]}")
read -r nbfq nrq nioc nleak nexit nexitput < <(awk '
	/^#/ { next }
	{ fio = $1 ~ /^(fio|iou-wrk-[0-9]+|<\.\.\.>)-[0-9]+$/ }
	fio && / bfq:/ {
		n = $0; sub(/.*nr=/, "", n); f++; r += n }
	fio && / iox:/ { x++; pend[$1] = 1 }
	/ ioc:/ {
		i = $0; sub(/.* ioc=/, "", i); sub(/ .*/, "", i)
		c = $0; sub(/.* ref=/, "", c); sub(/ .*/, "", c)
		last[i] = c
		if (fio)
			mine[i] = 1
		if (pend[$1]) {
			xp++
			pend[$1] = 0
		}
	}
	END {
		for (i in mine) {
			m++
			if (last[i] != 1)
				l++
		}
		print f + 0, r + 0, m + 0, l + 0, x + 0, xp + 0
	}' "$BB_TRACEFS/trace")
_probe_trace_stop
_log "bfq: $nbfq bfq_finish_requests calls by fio for $nrq requests;" \
     "$charged of $NPROCS cgroups charged with I/O to $devno"
_log "io_context: $nioc put in fio's tasks, $nleak without their last put" \
     "after fio exited; $nexitput of $nexit exits in fio's tasks followed" \
     "by a put ($lost trace events lost, $missed probe hits missed)"
_log "$((dying - dying0)) of $NPROCS removed cgroups dying $secs s after" \
     "bfq -> none"
if [ "$lost" -gt 0 ] || [ "$missed" -gt 0 ]; then
	_skip_later "the trace lost $lost events and the probes missed" \
		    "$missed hits: the io_context puts are not all known"
elif [ "$nbfq" -gt 0 ] && [ "$nioc" -eq 0 ]; then
	_skip_later "no put_io_context() seen in fio's tasks: the kprobe" \
		    "did not see the requests' io_context puts"
elif [ "$nleak" -gt 0 ] && [ "$nexit" -gt 0 ] && [ "$nexitput" -eq 0 ]; then
	_skip_later "no put_io_context() after any exit_io_context() of" \
		    "fio's tasks: this kernel's exit put is not seen (inlined?)"
elif [ "$nleak" -gt 0 ]; then
	_fail "$nleak of $nioc io_contexts put in fio's tasks were still" \
	      "referenced after fio exited: a request's io_context reference" \
	      "leaked (put for another request?)"
fi
if [ "$dying" -gt "$dying0" ]; then
	_fail "$((dying - dying0)) of $NPROCS removed cgroups still dying" \
	      "after $FREE_SECS looks a second apart freed none ($secs s):" \
	      "their blkgs are held (a leaked bfq_queue reference?)"
elif [ "$nbfq" -eq 0 ]; then
	_skip_later "bfq finished no batch: polling batched nothing"
elif [ "$charged" -lt "$NPROCS" ]; then
	_skip_later "only $charged of $NPROCS cgroups were charged with I/O" \
		    "to $devno: bfq queued the rest elsewhere"
fi
_check_idle none "$dev"
_show_result
