#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Requests per scheduler lock hold: at most 32 (BLK_MQ_MAX_RQS_PER_SCHED_LOCK).
# Under mq-deadline and bfq, blk-mq-sched dequeues a dispatch batch under
# one hold of the scheduler lock and ends it at 32 requests, and bfq
# inserts a plug flush's list for a hw queue under one hold per 32
# requests; bfq holds the lock with interrupts off.
#
# Seen through lockdep's lock:lock_acquire and lock:lock_release trace
# events, filtered by the scheduler lock's lockdep name (the elevator's
# name), and, on the same CPU inside a hold:
#  - dispatch: returns of ->dispatch_request() with a request (kretprobes
#    on dd_dispatch_request() and bfq_dispatch_request(), which are only
#    called through the elevator's ops, so cannot be inlined away);
#  - insertion: the block:block_rq_insert events of bfq_insert_request(),
#    inside a call of bfq_insert_requests() (a kprobe and a kretprobe; an
#    ops function too).
# Dispatch load, per scheduler: dm-multipath over null_blk; fio reads 4k at
# random through io_uring, 128 in flight; ROUNDS times the dm device is
# suspended (its queue quiesced) until more than 32 requests wait in the
# scheduler, and resumed with the trace on: the run of the hw queue that
# follows finds them all.
# Insertion load: two null_blk under bfq, read at random by one fio job
# through io_uring, 64 submitted a call: a plug of two queues holds up to
# 64 requests, so one hw queue's list is longer than 32 in most flushes.
# Fails when a hold has more than 32 requests, when a request is handed
# out or inserted without the lock, when more than 32 requests waited at
# a resume but no dispatch hold reached 32 (batches end early, or one
# request per hold), and when bfq got lists longer than 32 but no
# insertion hold reached 32 (the lock dropped more often: merging is off,
# so each of a list's requests is inserted).  Skips without lockdep (its
# trace events), kprobes, dm-multipath, mq-deadline or bfq; when events
# or kretprobe returns were lost; and when the load did not make the
# case: no round with more than 32 requests waiting, no list of more
# than 32 requests.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

ROUNDS=${ROUNDS:-4}
MAX_HOLD=32
GROUP=bb_hold
PROBES=(
	"r:dd_pick dd_dispatch_request rq=\$retval:x64"
	"r:bfq_pick bfq_dispatch_request rq=\$retval:x64"
	"ins bfq_insert_requests"
	"r:insret bfq_insert_requests"
)
LOCK_EVENTS="lock/lock_acquire lock/lock_release"
# written to the trace each time it is switched on (see the awk below)
WINDOW_MARK="bb_hold window"

_require_root
_require_program fio
_require_program awk
_require_fio_engine io_uring
_require_null_blk
_require_dm_multipath
_require_lockdep
_require_trace_event lock/lock_acquire
_require_trace_event block/block_rq_insert
_require_kprobes

_prep_test "requests per scheduler lock hold: dispatch after a quiesce" \
	"(mq-deadline, bfq) and bfq's insertion of long plug lists"

nb=bb_$TID
mp=bb_${TID}_mpath
_mpath_on_null_blk "$nb" "$mp" hw_queue_depth=256
dmdev=$BB_DM_DEV
for s in mq-deadline bfq; do
	_require_sched "$dmdev" "$s" || _skip "$s is not available"
done
ins_a=bb_${TID}_a ins_b=bb_${TID}_b
for d in "$ins_a" "$ins_b"; do
	_nullb_create "$d" memory_backed=0 submit_queues=1 hw_queue_depth=256 ||
		_skip "cannot create a null_blk device"
	_set_sched "$d" bfq || _fail "cannot select bfq on $d"
done
for d in "$dmdev" "$ins_a" "$ins_b"; do
	echo 2 > "/sys/block/$d/queue/nomerges" ||
		_fail "cannot turn off merging on $d"
done

# _events SYSTEM/EVENT... ON FILTER -- the trace events enabled (1) with
#   FILTER, or disabled (0) with their filters cleared
_events() {
	local on=${*: -2:1} filter=${*: -1} e

	for e in "${@:1:$#-2}"; do
		echo "$filter" > "$BB_TRACEFS/events/$e/filter" || return 1
		echo "$on" > "$BB_TRACEFS/events/$e/enable" || return 1
	done
}

# _hold_trace_stop -- every event of this test off, kprobes and trace
#   settings as they were; also on exit
_hold_trace_stop() {
	_events $LOCK_EVENTS block/block_rq_insert 0 0 2>/dev/null
	_probe_trace_stop
}
trap _hold_trace_stop EXIT
# (the schedulers' modules are loaded above: their functions can be probed)
_probe_trace_start 8192 "$GROUP" "${PROBES[@]}"
filter_dev="dev == $(_devt "$ins_a") || dev == $(_devt "$ins_b")"
_events $LOCK_EVENTS 1 'name == "mq-deadline" || name == "bfq"' &&
	_events block/block_rq_insert 1 "$filter_dev" &&
	echo 1 > "$BB_TRACEFS/events/$GROUP/enable" ||
	_skip "cannot enable and filter the lock and block_rq_insert events"

_watchdog_start "$dmdev" "$nb" "$ins_a" "$ins_b"

# --- dispatch after a quiesce, per scheduler ------------------------------
# "SCHED ROUND WAITING" per round in $BB_TMP/rounds
: > "$BB_TMP/rounds"
for s in mq-deadline bfq; do
	_set_sched "$dmdev" "$s" || { _fail "cannot select $s on $dmdev"; continue; }
	fio --name=hold --filename="/dev/$dmdev" --ioengine=io_uring --direct=1 \
		--rw=randread --bs=4k --iodepth=128 --rate_iops=2000 \
		--time_based --runtime=300 \
		> "$BB_TMP/fio.$s.log" 2>&1 &
	fio_pid=$!
	for r in $(seq "$ROUNDS"); do
		_inflight_soon "$dmdev" > /dev/null
		_dmsetup suspend --nolockfs "$mp" || { _fail "cannot suspend $mp"; break; }
		# more than 64 waiting (twice a hold), or 20 s (a slow guest:
		# the round counts only with more than 32)
		for _ in $(seq 100); do
			[ "$(_inflight "$dmdev")" -gt $((2 * MAX_HOLD)) ] && break
			sleep 0.2
		done
		waiting=$(_inflight "$dmdev")
		echo "$s $r $waiting" >> "$BB_TMP/rounds"
		echo 1 > "$BB_TRACEFS/tracing_on"
		echo "$WINDOW_MARK" > "$BB_TRACEFS/trace_marker"
		_dmsetup resume "$mp" || { _fail "cannot resume $mp"; break; }
		# the requests that waited are handed out: the in-flight count
		# falls under fio's 128
		for _ in $(seq 50); do
			[ "$(_inflight "$dmdev")" -lt "$waiting" ] && break
			sleep 0.1
		done
		echo 0 > "$BB_TRACEFS/tracing_on"
	done
	# fio ends on SIGTERM with its report, whose "err= 0" says that no
	# I/O failed (its exit status says that it was signalled)
	kill "$fio_pid" 2>/dev/null
	_wait_pid "$fio_pid"
	grep -q 'err= 0:' "$BB_TMP/fio.$s.log" ||
		_fail_io "fio on $dmdev under $s: $(grep -m1 'err=' "$BB_TMP/fio.$s.log")"
done

# --- bfq's insertion of a plug flush's lists --------------------------------
echo 1 > "$BB_TRACEFS/tracing_on"
echo "$WINDOW_MARK" > "$BB_TRACEFS/trace_marker"
fio --name=insert --filename="/dev/$ins_a:/dev/$ins_b" --ioengine=io_uring \
	--direct=1 --rw=randread --bs=4k --iodepth=64 --iodepth_batch_submit=64 \
	--iodepth_batch_complete_min=64 --file_service_type=random \
	--number_ios=2048 --size=64M > "$BB_TMP/fio.insert.log" 2>&1 &
_wait_pid $!
_fio_ok $? "$BB_TMP/fio.insert.log" || _fail_io "fio on $ins_a and $ins_b"
echo 0 > "$BB_TRACEFS/tracing_on"
_watchdog_stop

lost=$(_trace_lost)
missed=$(_kprobe_misses "$GROUP" dd_pick bfq_pick insret)
cp "$BB_TRACEFS/trace" "$BB_TMP/trace"
_hold_trace_stop

# "TASK-PID [CPU] FLAGS TIME: EVENT: ARGS", one CPU's events in order: a
# hold runs from lock_acquire to lock_release of a scheduler lock on one
# CPU (a spinlock: no migration, and bfq's has interrupts off); another
# scheduler lock taken inside it (an interrupt, under mq-deadline's) is
# nested, not a hold of its own.  A CPU's state is unknown until its
# first lock event after each WINDOW_MARK in the trace (the trace is
# switched on and off between rounds: a hold open at a window's end
# counts with what it had).  A bfq_insert_requests() call is its task's
# (the task may move to another CPU when it drops the lock).  Per lock
# name "NAME HOLDS DISPATCH_HOLDS MAX AT_CAP", then "outside PICKS"
# (handed out with no hold), "insert CALLS LONG MAX OUTSIDE"
# (bfq_insert_requests() calls, those with more than 32 requests, the
# most inserted under one hold, those inserted with no hold).
awk -v cap=$MAX_HOLD -v mark="$WINDOW_MARK" '
	/^#/ { next }
	{
		c = ""
		for (i = 1; i <= NF; i++)
			if ($i ~ /^\[[0-9]+\]$/) { c = $i; break }
		if (c == "") next
	}
	# the open holds counted with what they had
	function close_open(   k) {
		for (k in st)
			if (st[k] == 1) {
				if (p[k] > maxp[nm[k]]) maxp[nm[k]] = p[k]
				if (n[k] > maxi) maxi = n[k]
			}
	}
	$0 ~ " tracing_mark_write: " mark {
		close_open()
		for (k in st)
			st[k] = ""
		for (k in nest)
			nest[k] = 0
		next
	}
	/ lock_(acquire|release): / {
		name = $NF
		if ($0 ~ / lock_acquire: /) {
			if (st[c] == 1) { nest[c]++; next }
			st[c] = 1; nm[c] = name; p[c] = 0; n[c] = 0
			next
		}
		if (nest[c] > 0) { nest[c]--; next }
		if (st[c] == 1) {
			holds[name]++
			if (p[c] > 0) { dholds[name]++; if (p[c] > maxp[name]) maxp[name] = p[c] }
			if (p[c] == cap) full[name]++
			if (n[c] > maxi) maxi = n[c]
		}
		st[c] = 0
		next
	}
	/ (dd|bfq)_pick: / {
		if ($0 ~ /rq=0x0$/ || $0 ~ /rq=0x0 /) next
		if (st[c] == 1) p[c]++
		else if (st[c] == 0) outp++
		next
	}
	/ ins: / { call[$1] = 1; ni[$1] = 0; next }
	/ block_rq_insert: / {
		if (st[c] == 1) n[c]++
		else if (st[c] == 0) outi++
		if (call[$1]) ni[$1]++
		next
	}
	/ insret: / {
		if (call[$1]) { calls++; if (ni[$1] > cap) long++ }
		call[$1] = 0
	}
	END {
		close_open()
		for (s in holds)
			printf "%s %d %d %d %d\n", s, holds[s], dholds[s], maxp[s], full[s]
		printf "outside %d\n", outp
		printf "insert %d %d %d %d\n", calls, long, maxi, outi
	}' "$BB_TMP/trace" > "$BB_TMP/holds"
sed 's/^/# holds: /' "$BB_TMP/holds"

[ "$lost" -eq 0 ] ||
	_skip_later "the trace lost $lost events: holds not counted whole"
[ "$missed" -eq 0 ] ||
	_skip_later "the kretprobes missed $missed returns: requests not counted"
for s in mq-deadline bfq; do
	read -r _ holds dholds maxp full < <(awk -v s="$s" '$1 == s' "$BB_TMP/holds")
	many=$(awk -v s="$s" -v m=$MAX_HOLD '$1 == s && $3 > m { n++ } END { print n + 0 }' \
		"$BB_TMP/rounds")
	_log "$s: $many of $ROUNDS rounds with more than $MAX_HOLD requests waiting" \
	     "at the resume; ${dholds:-0} dispatch holds of ${holds:-0}, the largest" \
	     "${maxp:-0} requests, ${full:-0} of $MAX_HOLD"
	[ "${maxp:-0}" -le $MAX_HOLD ] ||
		_fail "$s: $maxp requests handed out under one scheduler lock hold" \
		      "(at most $MAX_HOLD)"
	[ "$many" -gt 0 ] ||
		_skip_later "$s: no round had more than $MAX_HOLD requests waiting:" \
			    "$(awk -v s="$s" '$1 == s { printf "%s ", $3 }' "$BB_TMP/rounds")"
	[ "${full:-0}" -gt 0 ] || [ "$many" -eq 0 ] ||
		_fail "$s: more than $MAX_HOLD requests waited at $many resumes," \
		      "but no dispatch hold handed out $MAX_HOLD (at most ${maxp:-0})"
done
read -r _ outp < <(awk '$1 == "outside"' "$BB_TMP/holds")
[ "${outp:-0}" -eq 0 ] ||
	_fail "$outp requests handed out by ->dispatch_request() without the scheduler lock"
read -r _ calls long maxi outi < <(awk '$1 == "insert"' "$BB_TMP/holds")
_log "bfq: $calls bfq_insert_requests() calls, $long with more than $MAX_HOLD" \
     "requests; at most $maxi inserted under one hold"
[ "$maxi" -le $MAX_HOLD ] ||
	_fail "bfq: $maxi requests inserted under one scheduler lock hold (at most $MAX_HOLD)"
[ "$outi" -eq 0 ] ||
	_fail "bfq: $outi requests inserted without the scheduler lock"
[ "$long" -eq 0 ] || [ "$lost" -ne 0 ] || [ "$missed" -ne 0 ] ||
	[ "$maxi" -ge $MAX_HOLD ] ||
	_fail "bfq: $long lists of more than $MAX_HOLD requests, but no hold" \
	      "inserted more than $maxi: the lock was dropped more often"
[ "$long" -gt 0 ] ||
	_skip_later "bfq: no plug flush gave bfq_insert_requests() more than" \
		    "$MAX_HOLD requests ($calls calls)"

_show_result
