#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A plug flush into an elevator inserts once per hardware queue:
# blk_mq_dispatch_list() groups a plug's requests for the elevator by
# hardware queue only, so a plug whose requests were allocated on two CPUs
# (two software queues of the one hardware queue) costs one
# ->insert_requests() call and one queue run, not one per software queue,
# for every elevator: kyber, which keeps its lists per hardware queue, too.
# Passthrough requests go to the hardware queue's dispatch list, not to
# the elevator, and are grouped by hardware queue only as well.
# Without an elevator the split by software queue stays:
# blk_mq_insert_requests() takes the requests of one software queue.
# Devices: a null_blk with one hardware queue, and one with a hardware
# queue per CPU, each under mq-deadline, bfq and kyber; another with 8 tags
# and no elevator, on which fio's batches of 16 sleep for a tag, so that
# the plug is flushed from schedule() into blk_mq_dispatch_list() and no
# request is issued from the plug directly;
# and for passthrough requests the NVMe namespace named by BB_NVME_DEV
# (only read) under mq-deadline, whose one poll queue both CPUs share
# (booted with nvme.poll_queues=1).
# fio write+verify through libaio in io_submit() batches of 16 (on the
# namespace: NVMe reads through io_uring_cmd --hipri on its generic
# character device, submitted 16 at a time) while a
# loop moves fio between CPU 0 and CPU 1.  Kprobes on
# blk_mq_flush_plug_list() and blk_mq_dispatch_list() and the block_getrq
# event classify each flush that held requests of the device; each
# request's software and hardware queue are its own rq->mq_ctx and
# rq->mq_hctx, read by a kretprobe on __blk_mq_alloc_requests() just
# before the request's block_getrq (not the
# CPU that block_getrq fired on: the task may move to another CPU between
# choosing the software queue and that event).  A passthrough request has
# no block_getrq, and io_uring's plug caches its requests, 16 from one
# allocation, all of one software and hardware queue: there each
# allocation on the poll queue counts, for the queues of its batch.
#
# Fails on a verify error, on a flush into an elevator that called
# blk_mq_dispatch_list() more often than it held hardware queues (the
# requests of one hardware queue inserted in several lists) or less often
# (one list of two hardware queues, inserted and run through one of them),
# when a flush into an elevator showed
# no call at all (the probes would not see the failure), or, without an
# elevator, on a flush from schedule() with requests of two software
# queues that called it only once (one list of two software queues: the
# kernel's BUG_ON in blk_mq_insert_requests() fires first, when it is
# there);
# skips when fewer than 5 flushes (without an elevator: from schedule();
# on the device with a hardware queue per CPU: of two hardware queues)
# held requests of two software queues in 3 runs (nothing tested), when an
# insertion was seen outside a seen flush (a call site of
# blk_mq_flush_plug_list() inlined), on one CPU, or when the kernel has no
# kprobe events or inlined one of the functions; the passthrough case
# skips without the namespace, its poll queue or fio's io_uring_cmd
# engine.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

GROUP=bb_plug2
PROBES=(
	"flush blk_mq_flush_plug_list from_sched=\$arg2:u8"
	"dl blk_mq_dispatch_list"
)
RETPROBE="r:flushret blk_mq_flush_plug_list"
# rq->mq_ctx and rq->mq_hctx: the second and third members of struct
# request, after its queue pointer (a pointer's size: the width of a
# kernel address in /proc/kallsyms)
ptr=$(awk '{ print length($1) / 2; exit }' /proc/kallsyms)
ALLOCPROBE="r:alloc __blk_mq_alloc_requests ctx=+$ptr(\$retval):x64"
ALLOCPROBE+=" hctx=+$((2 * ptr))(\$retval):x64"
MIN_SPANNING=5
MAX_RUNS=3

_require_root
_require_program fio
_require_program awk
_require_program taskset
_require_fio_engine libaio
_require_null_blk
[ "$(nproc)" -ge 2 ] || _skip "needs two CPUs to span two software queues"
_require_trace_event block/block_getrq
_require_kprobes

# the trace clock in use before the test, restored afterwards: the global
# clock keeps a task's events in order when it moves to another CPU
orig_clock=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$BB_TRACEFS/trace_clock")

# _probes_remove -- the probes gone and the trace settings as they were;
#   also on exit (the runner's timeout sends SIGTERM)
_probes_remove() {
	echo 0 > "$BB_TRACEFS/tracing_on"
	echo "${orig_clock:-local}" > "$BB_TRACEFS/trace_clock" 2>/dev/null
	echo 0 > "$BB_TRACEFS/events/block/block_getrq/enable"
	echo 0 > "$BB_TRACEFS/events/block/block_getrq/filter"
	_kprobes_del "$GROUP" "${PROBES[@]}" "$RETPROBE" "$ALLOCPROBE"
	[ -z "${orig_buf_kb:-}" ] ||
		echo "$orig_buf_kb" > "$BB_TRACEFS/buffer_size_kb"
	echo > "$BB_TRACEFS/trace"
	[ -z "${orig_tracing_on:-}" ] ||
		echo "$orig_tracing_on" > "$BB_TRACEFS/tracing_on"
}

_prep_test "a plug flush inserts once per hardware queue into an elevator," \
	   "once per software queue without one"

# timer completions (50 us), so that fio finds no free slot at once and
# submits whole batches (test_plug_01 says why)
d=bb_${TID}
_nullb_create "$d" submit_queues=1 poll_queues=0 irqmode=2 \
	completion_nsec=50000 ||
	_skip "cannot create a null_blk device with one hardware queue"
[ "$(ls "/sys/block/$d/mq" | wc -l)" -eq 1 ] ||
	_skip "$d has more than one hardware queue"
dm=bb_${TID}_mq
_nullb_create "$dm" submit_queues="$(nproc)" poll_queues=0 irqmode=2 \
	completion_nsec=50000 ||
	_skip "cannot create a null_blk device with a hardware queue per CPU"
[ "$(ls "/sys/block/$dm/mq" | wc -l)" -ge 2 ] ||
	_skip "$dm has one hardware queue"
dn=bb_${TID}_none
_nullb_create "$dn" submit_queues=1 poll_queues=0 irqmode=2 \
	completion_nsec=50000 hw_queue_depth=8 ||
	_skip "cannot create a null_blk device with 8 tags"

# the passthrough case's namespace, or why there is none
pt_why='' ns='' ng=''
if [ -z "${BB_NVME_DEV:-}" ]; then
	pt_why="BB_NVME_DEV names no NVMe namespace"
else
	ns=${BB_NVME_DEV#/dev/}
	ng=/dev/ng${ns#nvme}
	if [ ! -c "$ng" ]; then
		pt_why="$ns has no generic character device $ng"
	elif [ "$(cat "/sys/block/$ns/queue/io_poll" 2>/dev/null)" != 1 ]; then
		pt_why="$ns has no poll queue (boot with nvme.poll_queues=1)"
	elif ! fio --enghelp 2>/dev/null | grep -qw io_uring_cmd; then
		pt_why="fio has no io_uring_cmd ioengine"
	elif [ ! -w "/sys/block/$ns/queue/iostats_passthrough" ]; then
		pt_why="$ns has no iostats_passthrough: the watchdog would see none of its commands"
	elif why=$(_disk_in_use "$ns"); then
		pt_why="refusing $ns: $why"
	fi
fi

orig_tracing_on=$(cat "$BB_TRACEFS/tracing_on")
_probes_remove
trap _probes_remove EXIT
echo global > "$BB_TRACEFS/trace_clock" ||
	_skip "cannot select the global trace clock"
if ! fn=$(_kprobes_add "$GROUP" "${PROBES[@]}" "$RETPROBE" "$ALLOCPROBE"); then
	_skip "cannot probe $fn" \
	      "(inlined in this kernel?)"
fi
# fio's tasks only, and the device's requests only
for e in flush dl flushret alloc; do
	echo 'comm == "fio"' > "$BB_TRACEFS/events/$GROUP/$e/filter" ||
		_skip "cannot filter the $e probe by task name"
done
orig_buf_kb=$(_trace_buf_kb)
# about 20 events of 100 bytes per flush, 512 flushes per run
echo 4096 > "$BB_TRACEFS/buffer_size_kb" ||
	_skip "cannot size the trace buffer"

# _mover PID -- move every thread of PID between CPU 0 and CPU 1 until it
#   exits; prints the number of moves
_mover() {
	local n=0

	while kill -0 "$1" 2>/dev/null; do
		taskset -a -p 1 "$1" > /dev/null 2>&1 || break
		taskset -a -p 2 "$1" > /dev/null 2>&1 || break
		n=$((n + 2))
	done
	echo "$n"
}

# _plug2_run CASE -- fio on $dev (write+verify; the passthrough case
#   reads through $ng) while _mover moves it; the trace into
#   $BB_TMP/trace.CASE, the moves into $BB_TMP/moves.CASE
_plug2_run() {
	local fio_pid mover_pid rc job

	job=(--filename="/dev/$dev" --ioengine=libaio --direct=1 --rw=randwrite
	     --verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0)
	# (--hipri is an engine option: after --ioengine; the character
	# device takes no O_DIRECT; four times the requests, since its
	# flushes are quick and fewer span a move)
	[ "$dev" != "$ns" ] ||
		job=(--filename="$ng" --ioengine=io_uring_cmd --cmd_type=nvme
		     --hipri --rw=randread --size=64M)
	echo > "$BB_TRACEFS/trace"
	echo 1 > "$BB_TRACEFS/events/$GROUP/enable"
	echo 1 > "$BB_TRACEFS/events/block/block_getrq/enable"
	echo 1 > "$BB_TRACEFS/tracing_on"
	fio --name=bb-plug2 --thread --bs=4k --iodepth=32 \
		--iodepth_batch_submit=16 --iodepth_batch_complete_min=16 \
		--size=16M --numjobs=1 "${job[@]}" > "$BB_TMP/fio.$1.log" 2>&1 &
	fio_pid=$!
	_mover "$fio_pid" > "$BB_TMP/moves.$1" &
	mover_pid=$!
	_wait_pid "$fio_pid"
	rc=$?
	# (fio stuck after a stall: the mover would loop for as long)
	[ $rc -eq 0 ] || kill "$mover_pid" 2>/dev/null
	wait "$mover_pid"
	echo 0 > "$BB_TRACEFS/tracing_on"
	echo 0 > "$BB_TRACEFS/events/block/block_getrq/enable"
	echo 0 > "$BB_TRACEFS/events/$GROUP/enable"
	cat "$BB_TRACEFS/trace" > "$BB_TMP/trace.$1"
	if [ "$(_trace_lost)" -gt 0 ] || grep -q 'LOST.*EVENTS' "$BB_TMP/trace.$1"; then
		_fail "$1: the trace lost events: flushes cannot be classified"
		return 1
	fi
	if ! _fio_ok $rc "$BB_TMP/fio.$1.log"; then
		_fail_io "$1: fio on $dev failed"
		return 1
	fi
}

# _plug2_classify CASE -- "flushes spanning multi maxdl dlall nodl outside
#   sspan sspan1 unseen moved hspan mixed": flushes of fio's tasks that
#   held requests of the device (block_getrq events of the task since its
#   previous flush), those of them with requests of two or more software
#   queues (the mq_ctx of the task's last allocation before each
#   block_getrq), those that called blk_mq_dispatch_list() more often than
#   they held hardware queues (mq_hctx, likewise), the most calls in one
#   flush, the calls in all, flushes with no call, calls outside any flush
#   seen, the
#   flushes from schedule() with requests of two or more software queues
#   that called it, and those of them that called it once, requests whose
#   allocation was not seen (no software queue known), and requests whose
#   block_getrq ran on another CPU than that of most of their software
#   queue's requests (the task moved in between), flushes with requests
#   of two or more hardware queues, and flushes that called it less often
#   than they held hardware queues but at least once.  With AT_ALLOC (the
#   passthrough case), an allocation counts instead of a block_getrq: one
#   for each batch of requests that the plug caches (the request counts
#   are then batches), only on the hardware queue that most allocations
#   were on (the poll queue: not an admin command of fio's).  A flush runs from a
#   task's blk_mq_flush_plug_list() entry to the matching return (a nested
#   flush, from schedule() in the middle of one, counts as part of it).
_plug2_classify() {
	local files=("$BB_TMP/trace.$1")

	[ "${2:-0}" = 1 ] && files+=("$BB_TMP/trace.$1")
	awk -v at_alloc="${2:-0}" '
	# request(t, q, h, cpu): task t holds a request of software queue q
	# and hardware queue h, seen on cpu, for its next flush
	function request(t, q, h, cpu) {
		addq(phl, phw, t, h)
		oncpu[q SUBSEP cpu]++
		pending[t]++
		addq(pcl, pncpu, t, q)
	}
	# addq(set, n, t, k): count queue k once in the set of task t
	function addq(set, n, t, k) {
		if (!(t in set))
			set[t] = " "
		if (index(set[t], " " k " ") == 0) {
			set[t] = set[t] k " "
			n[t]++
		}
	}
	# with at_alloc, the trace twice: first the hardware queue of most
	# allocations
	at_alloc && FNR == NR {
		if ($0 ~ / alloc: \(/ && match($0, /hctx=0x[0-9a-f]+/))
			nalloc[substr($0, RSTART, RLENGTH)]++
		next
	}
	at_alloc && poll == "" {
		for (h in nalloc)
			if (nalloc[h] > nbest) {
				nbest = nalloc[h]
				poll = h
			}
	}
	$0 ~ /^ *#/ { next }
	{
		t = $1	# task-pid
		if (t !~ /^fio-/)
			next
		if ($0 ~ / flush: \(/) {
			if (depth[t]++ > 0)
				next
			held[t] = pending[t]
			span[t] = (pncpu[t] >= 2)
			nh[t] = phw[t]
			pending[t] = pncpu[t] = phw[t] = 0
			pcl[t] = phl[t] = " "
			dl[t] = 0
			fs[t] = ($0 ~ /from_sched=1/)
		} else if ($0 ~ / flushret: \(/) {
			if (depth[t] == 0 || --depth[t] > 0 || held[t] == 0)
				next
			flushes++
			spanning += span[t]
			if (nh[t] >= 2)
				hspan++
			if (dl[t] > nh[t])
				multi++
			if (dl[t] > 0 && dl[t] < nh[t])
				mixed++
			if (dl[t] == 0)
				nodl++
			if (dl[t] > maxdl)
				maxdl = dl[t]
			if (fs[t] && span[t] && dl[t] > 0) {
				sspan++
				if (dl[t] == 1)
					sspan1++
			}
		} else if ($0 ~ / dl: \(/) {
			dlall++
			if (depth[t] > 0)
				dl[t]++
			else
				outside++
		} else if ($0 ~ / alloc: \(/) {
			actx[t] = ahw[t] = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^ctx=/)
					actx[t] = $i
				else if ($i ~ /^hctx=/)
					ahw[t] = $i
			}
			if (at_alloc && actx[t] ~ /^ctx=0x[0-9a-f]+$/ &&
			    actx[t] != "ctx=0x0" && ahw[t] == poll) {
				request(t, actx[t], ahw[t], $2)
				delete actx[t]
				delete ahw[t]
			}
		} else if ($0 ~ / block_getrq: /) {
			# the software and hardware queue of the request: its
			# mq_ctx and mq_hctx, from its allocation; pcl[t] and
			# phl[t]: those since the last flush
			if (!(t in actx) || actx[t] !~ /^ctx=0x[0-9a-f]+$/ ||
			    actx[t] == "ctx=0x0" ||
			    ahw[t] !~ /^hctx=0x[0-9a-f]+$/ || ahw[t] == "hctx=0x0") {
				unseen++
				next
			}
			# ($2: the CPU the event ran on)
			request(t, actx[t], ahw[t], $2)
			delete actx[t]
			delete ahw[t]
		}
	}
	END {
		# a software queue belongs to the CPU most of its requests
		# were seen on; the others ran block_getrq on another CPU
		for (k in oncpu) {
			split(k, f, SUBSEP)
			if (oncpu[k] > best[f[1]])
				best[f[1]] = oncpu[k]
			all[f[1]] += oncpu[k]
		}
		for (q in all)
			moved += all[q] - best[q]
		printf "%d %d %d %d %d %d %d %d %d %d %d %d %d\n", flushes,
			spanning, multi, maxdl, dlall, nodl, outside, sspan,
			sspan1, unseen, moved, hspan, mixed
	}' "${files[@]}"
}

# _pt_restore -- the namespace's scheduler and passthrough statistics as
#   they were before the passthrough case
_pt_restore() {
	[ -z "${pt_sched:-}" ] || _set_sched "$ns" "$pt_sched" ||
		_fail "$ns: cannot select $pt_sched again"
	[ -z "${pt_stats:-}" ] ||
		echo "$pt_stats" > "/sys/block/$ns/queue/iostats_passthrough"
	pt_sched='' pt_stats=''
}
# (not after a stall: selecting a scheduler freezes the queue, which a
# stranded request keeps from freezing)
trap '_probes_remove; _stalled || _pt_restore' EXIT

# CASE: the elevator, "@mq" for the device with a hardware queue per CPU,
# "@pt" for passthrough requests on the NVMe namespace
for c in mq-deadline bfq kyber none mq-deadline@mq bfq@mq kyber@mq \
	 mq-deadline@pt; do
	_stalled && break
	s=${c%@*} dev=$d
	[ "$s" != none ] || dev=$dn
	[ "$c" = "$s" ] || dev=$dm
	if [ "$c" = mq-deadline@pt ]; then
		if [ -n "$pt_why" ]; then
			_skip_later "$c: $pt_why"
			continue
		fi
		dev=$ns
		pt_sched=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "/sys/block/$ns/queue/scheduler")
		# counted in the disk's statistics, which the watchdog reads
		pt_stats=$(cat "/sys/block/$ns/queue/iostats_passthrough")
		echo 1 > "/sys/block/$ns/queue/iostats_passthrough"
	fi
	# (not available: a skip reason of the test)
	_require_sched "$dev" "$s" || continue
	if ! _set_sched "$dev" "$s"; then
		_fail "cannot select $s on $dev"
		continue
	fi
	echo "dev == $(_devt "$dev")" > "$BB_TRACEFS/events/block/block_getrq/filter" ||
		_skip "cannot filter block_getrq by device"
	_watchdog_start "$dev"
	tot_span=0
	for run in $(seq "$MAX_RUNS"); do
		_plug2_run "$c.$run" || break
		read -r flushes spanning multi maxdl dlall nodl outside sspan \
			sspan1 unseen moved hspan mixed < \
			<(_plug2_classify "$c.$run" "$([ "$dev" = "$ns" ] && echo 1)")
		_log "$c run $run: $flushes flushes of $dev's requests," \
		     "$spanning with requests of two software queues," \
		     "$hspan of two hardware queues," \
		     "$(cat "$BB_TMP/moves.$c.$run") moves; $dlall insertions," \
		     "$multi flushes with more than one per hardware queue" \
		     "(at most $maxdl), $mixed with fewer than their hardware queues," \
		     "$nodl with none, $outside outside a flush;" \
		     "$sspan from schedule() with requests of two software" \
		     "queues, $sspan1 of them in one list; $unseen requests" \
		     "with no allocation seen, $moved whose block_getrq ran on" \
		     "another CPU than their software queue's"
		# returns of blk_mq_flush_plug_list() the kretprobe missed:
		# a missed return would merge two flushes into one
		missed=$(_kprobe_misses "$GROUP" flushret alloc)
		if [ "${missed:-0}" -gt 0 ] || [ "$unseen" -gt 0 ]; then
			_skip_later "$c: the kretprobes missed $missed returns of" \
				    "blk_mq_flush_plug_list() or" \
				    "__blk_mq_alloc_requests(), $unseen requests" \
				    "with no allocation seen: flushes cannot be" \
				    "classified"
			break
		fi
		if [ "$flushes" -eq 0 ]; then
			_fail "$c: no plug flush of $dev's requests seen: fio's" \
			      "batches were not plugged, or the probes see" \
			      "nothing"
			break
		fi
		if [ "$outside" -gt 0 ]; then
			_skip_later "$c: $outside blk_mq_dispatch_list() calls" \
				    "outside a flush seen (a call of" \
				    "blk_mq_flush_plug_list() inlined?)"
			break
		fi
		if [ "$s" = none ]; then
			if [ "$sspan1" -gt 0 ]; then
				_fail "none: $sspan1 of $sspan flushes from" \
				      "schedule() put the requests of two software" \
				      "queues in one blk_mq_dispatch_list() list"
				break
			fi
			tot_span=$((tot_span + sspan))
			[ "$tot_span" -ge "$MIN_SPANNING" ] && break
			continue
		fi
		if [ "$multi" -gt 0 ]; then
			_fail "$c: $multi plug flushes inserted the requests of" \
			      "one hardware queue in more than one list (up to" \
			      "$maxdl blk_mq_dispatch_list() calls in one flush)"
			break
		fi
		if [ "$mixed" -gt 0 ]; then
			_fail "$c: $mixed of $hspan plug flushes with requests of" \
			      "two hardware queues made fewer" \
			      "blk_mq_dispatch_list() calls than hardware queues:" \
			      "one list held requests of two hardware queues"
			break
		fi
		if [ "$nodl" -gt 0 ]; then
			_fail "$c: $nodl of $flushes flushes of $dev's requests" \
			      "showed no blk_mq_dispatch_list() call: the" \
			      "probes would not see the failure"
			break
		fi
		# on the device with a hardware queue per CPU, the flushes
		# that span two of them are the ones under test
		[ "$dev" = "$dm" ] && spanning=$hspan
		tot_span=$((tot_span + spanning))
		[ "$tot_span" -ge "$MIN_SPANNING" ] && break
	done
	if [ "$BB_ERR" -eq 0 ] && ! _stalled &&
	   [ "$tot_span" -lt "$MIN_SPANNING" ]; then
		what="plug flushes"
		[ "$s" != none ] || what="plug flushes from schedule()"
		queues="software queues"
		[ "$dev" != "$dm" ] || queues="hardware queues"
		_skip_later "$c: only $tot_span $what held requests from" \
			    "two $queues in $MAX_RUNS runs (needs $MIN_SPANNING)"
	fi
	_watchdog_stop
	[ "$dev" != "$ns" ] || _stalled || _pt_restore
done
_probes_remove
_stalled || _pt_restore

_show_result
