#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A bio merge takes no scheduler lock while the merge hash is empty:
# dd_bio_merge() and bfq_bio_merge() return at once when the scheduler
# holds no hashed request (elv_rqhash_empty()), and take the lock as
# before while requests wait.
# Seen through kprobes and kretprobes on dd_bio_merge() and bfq_bio_merge()
# (only called through the elevator's ops, so cannot be inlined away) and
# lockdep's lock:lock_acquire events filtered by the scheduler lock's
# lockdep name (the elevator's name), paired by task: an acquisition in
# task context between a task's entry to ->bio_merge() and its return is
# the merge's.  Only calls for the device's queue count (the queue that
# the elevator's init, dd_init_sched() or bfq_init_queue(), was given when
# the case selected it, with the trace on).  The device's
# block:block_rq_insert and block:block_rq_issue events since that
# selection, which left the scheduler empty, tell whether any request (of
# any task) was in the scheduler during a call; only calls with none
# count as calls on an empty hash.
# Per scheduler, on a null_blk with one tag and 2 ms completions, fio
# writes 4k at random (direct; nr_requests 128):
#  empty    one write at a time (psync): each write's request has been
#           dispatched before the next bio is offered for a merge;
#  waiting  16 in flight (io_uring): requests wait in the scheduler.
# Fails when a ->bio_merge() call on an empty hash takes the scheduler
# lock, and when no call took it while requests waited (the probes would
# not see it).  Skips without lockdep (its trace events), kprobes,
# mq-deadline or bfq; when events or kretprobe returns were lost; and when
# fewer than half of the empty case's calls found the scheduler empty
# (other I/O on the device).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

WRITES=${WRITES:-512}
GROUP=bb_merge_02
PROBES=(
	"bm dd_bio_merge q=\$arg1:x64"
	"r:bmret dd_bio_merge"
	"bfq_bm bfq_bio_merge q=\$arg1:x64"
	"r:bfq_bmret bfq_bio_merge"
	"init dd_init_sched q=\$arg1:x64"
	"bfq_init bfq_init_queue q=\$arg1:x64"
)
EVENTS="lock/lock_acquire block/block_rq_insert block/block_rq_issue"

_require_root
_require_program fio
_require_program awk
_require_fio_engine io_uring
_require_null_blk
_require_lockdep
_require_trace_event lock/lock_acquire
_require_trace_event block/block_rq_insert
_require_trace_event block/block_rq_issue
_require_kprobes

_prep_test "no scheduler lock for a bio merge on an empty merge hash"

dev=bb_$TID
_nullb_create "$dev" memory_backed=0 submit_queues=1 hw_queue_depth=1 \
	irqmode=2 completion_nsec=2000000 ||
	_skip "cannot create a null_blk device"
for s in mq-deadline bfq; do
	_require_sched "$dev" "$s" || _skip "$s is not available"
done
devt=$(_devt "$dev")

# _events ON -- the lock and block events on (1, filtered to the scheduler
#   locks and this device) or off (0, filters cleared)
_events() {
	local e f

	for e in $EVENTS; do
		f="dev == $devt"
		[ "$e" = lock/lock_acquire ] && f='name == "mq-deadline" || name == "bfq"'
		[ "$1" = 1 ] || f=0
		echo "$f" > "$BB_TRACEFS/events/$e/filter" || return 1
		echo "$1" > "$BB_TRACEFS/events/$e/enable" || return 1
	done
}
trap '_events 0 2>/dev/null; _probe_trace_stop' EXIT
_probe_trace_start 4096 "$GROUP" "${PROBES[@]}"
_events 1 || _skip "cannot enable and filter the lock and block events"

# "TASK-PID [CPU] FLAGS TIME: EVENT: ARGS" in global order.  in_sched:
# requests inserted and not yet issued (the hash holds at most those; a
# request issued without an insertion, such as a flush, was never in it);
# a call is clean if that was 0 from its entry to its return.  Prints
# "CALLS CLEAN TOOK CLEAN_TOOK" for the ->bio_merge() calls on the queue.
_count() {
	awk '
	/^#/ { next }
	{
		c = 0
		for (i = 1; i <= NF; i++)
			if ($i ~ /^\[[0-9]+\]$/) { c = i; break }
		if (!c) next
		task = $1; flags = $(c + 1)
	}
	/ (init|bfq_init): / { q = $NF; next }
	/ block_rq_insert: / { in_sched++; for (t in open) dirty[t] = 1; next }
	/ block_rq_issue: / { if (in_sched > 0) in_sched--; next }
	/ (bm|bfq_bm): / {
		if (q == "" || $NF != q) next
		open[task] = 1; took[task] = 0; dirty[task] = (in_sched > 0)
		next
	}
	/ lock_acquire: / {
		# task context only: not an interrupt that came in on the call
		if ((task in open) && substr(flags, 3, 1) == ".") took[task] = 1
		next
	}
	/ (bmret|bfq_bmret): / {
		if (!(task in open)) next
		calls++
		if (in_sched > 0) dirty[task] = 1
		if (!dirty[task]) clean++
		if (took[task]) { t++; if (!dirty[task]) ct++ }
		delete open[task]
	}
	END { printf "%d %d %d %d\n", calls, clean, t, ct }' "$BB_TMP/trace"
}

_watchdog_start "$dev"
for s in mq-deadline bfq; do
	for c in empty waiting; do
		if [ $c = empty ]; then
			eng=(--ioengine=psync)
		else
			eng=(--ioengine=io_uring --iodepth=16)
		fi
		# the elevator selected anew with the trace on: it starts
		# empty, and its init names the queue
		_set_sched "$dev" none || { _fail "cannot select none on $dev"; break 2; }
		_probe_trace_on
		_set_sched "$dev" "$s" || { _fail "cannot select $s on $dev"; break 2; }
		# (the elevator's default with one tag is 2 scheduler tags)
		echo 128 > "/sys/block/$dev/queue/nr_requests" ||
			_fail "cannot set nr_requests on $dev"
		fio --name=$c --filename="/dev/$dev" "${eng[@]}" --direct=1 \
			--rw=randwrite --bs=4k --size=64M --number_ios="$WRITES" \
			> "$BB_TMP/fio.$s.$c.log" 2>&1 &
		_wait_pid $!
		_fio_ok $? "$BB_TMP/fio.$s.$c.log" ||
			_fail_io "fio ($c) on $dev under $s"
		_probe_trace_off
		lost=$(_trace_lost)
		cp "$BB_TRACEFS/trace" "$BB_TMP/trace"
		read -r calls clean took ctook < <(_count)
		_log "$s $c: $calls ->bio_merge() calls for $WRITES writes," \
		     "$clean with the scheduler empty; the scheduler lock taken" \
		     "in $took, $ctook of them with it empty"
		[ "$lost" -eq 0 ] ||
			_skip_later "$s $c: the trace lost $lost events"
		[ "$calls" -gt 0 ] ||
			_fail "$s $c: no ->bio_merge() call seen for $WRITES writes"
		[ "$ctook" -eq 0 ] ||
			_fail "$s $c: $ctook of $clean ->bio_merge() calls with" \
			      "an empty scheduler took the scheduler lock"
		if [ $c = empty ]; then
			[ $((2 * clean)) -ge "$calls" ] ||
				_skip_later "$s: only $clean of $calls ->bio_merge()" \
					    "calls found the scheduler empty: other I/O"
		else
			[ $((took - ctook)) -gt 0 ] ||
				_fail "$s: the scheduler lock was taken in none of" \
				      "$((calls - clean)) ->bio_merge() calls while" \
				      "requests waited: the probes do not see it"
		fi
	done
done
_watchdog_stop

missed=$(_kprobe_misses "$GROUP" bmret bfq_bmret)
[ "$missed" -eq 0 ] ||
	_skip_later "the kretprobes missed $missed returns: calls not counted"

_show_result
