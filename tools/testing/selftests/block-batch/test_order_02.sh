#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Dispatch order through bfq: each batch reaches the driver in the order
# bfq handed its requests out.  Device and load of test_order_01
# (common_order.sh).  bfq's order is neither FIFO nor sector order, so it is
# traced (kprobes, global clock): a batch starts at blk_mq_sched_dequeue()
# (for bfq, under one scheduler lock hold), bfq_dispatch_request()'s return
# gives bfq's next request, null_queue_rq() (queue_rq, and per request for
# queue_rqs) the driver's order and hw queue.  Fails when a request reaches
# the driver after a request of its batch and hw queue that bfq handed out
# after it (blk-mq-sched sorts a batch by hw queue, stably), when another
# batch's request is handed out between two of one batch (not one hold),
# or when the traced requests are not the written ones.  The bound of 32
# requests per hold is test_hold_01's (here each job keeps at most 32
# requests in flight, so no batch could exceed it).  Only logged: order
# across batches (consecutive
# batches may be issued concurrently by two CPUs) and sector order within a
# region, which bfq's own order does not keep (bfq_choose_req() may take the
# nearest request behind the device's last position, which another queue's
# request just moved; test_order_01's check would fail under bfq).  Skips
# with fewer than 2 CPUs, without bfq or kprobes, when a function cannot
# be probed, or when no round had a batch of two requests for one hw queue
# and bfq handing out requests on two CPUs.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh
. "$(cd "$(dirname "$0")" && pwd)"/common_order.sh

GROUP=bb_order_02
PROBES=(
	"hold blk_mq_sched_dequeue"
	"r:pick bfq_dispatch_request rq=\$retval:x64"
	"issue null_queue_rq hctx=\$arg1:x64 rq=+0(\$arg2):x64"
)

_order_require
_require_kprobes

# _probes_remove -- the kprobes gone and the trace settings as they were;
#   also on exit (the runner's timeout sends SIGTERM)
_probes_remove() {
	_order_trace_restore
	_kprobes_del "$GROUP" "${PROBES[@]}"
}

_prep_test "dispatch order of sequential bursts through bfq, batch by batch"

# bfq and null_blk may be modules: loaded here, before the kprobes
_order_setup bfq
trap _probes_remove EXIT
if ! fn=$(_kprobes_add "$GROUP" "${PROBES[@]}"); then
	_probes_remove
	_skip "cannot probe $fn: no such function in this kernel" \
	      "(inlined?), or its arguments cannot be fetched"
fi

# _order_count -- of $BB_TMP/trace (read twice: first the requests issued
#   to null_blk, the device's), "issued picked unpicked batches multi max
#   nulls pairs inversions interleaved cross late cpus": requests issued,
#   picked by bfq; issued without a pick; batches (holds with a pick),
#   those with two picks or more, the largest, those that ended with bfq
#   returning no request; pairs of requests of one batch and hw queue
#   checked, and inverted; picks of a batch after another batch's pick;
#   issues after a request bfq handed out later on the same hw queue (any
#   batch); issues by another task than the batch's; CPUs that picked;
#   sector inversions within a region in bfq's order and in the driver's
#   (block_rq_issue, after null_queue_rq() in the same task)
_order_count() {
	awk -v region=$((BB_ORDER_REGION_MB * 2048)) "$BB_ORDER_AWK_SECTOR"'
	function val(name) {
		if (!match($0, " " name "=[^ ]+"))
			return ""
		return substr($0, RSTART + length(name) + 2,
			      RLENGTH - length(name) - 2)
	}
	NR == FNR { if ($0 ~ / issue: /) ours[val("rq")] = 1; next }
	/^#/ { next }
	{
		# "TASK-PID [CPU] FLAGS TIME: EVENT: ..."
		if (!match($0, /-[0-9]+ +\[[0-9]+\]/))
			next
		s = substr($0, RSTART + 1, RLENGTH - 1)
		pid = s + 0
		sub(/.*\[/, "", s)
		cpu = s + 0
	}
	/ hold: / { cur[pid] = ++holds; next }
	/ pick: / {
		r = val("rq")
		if (!(pid in cur))
			next
		b = cur[pid]
		if (r == "0x0") {
			ended[b] = 1
			next
		}
		if (!(r in ours))
			next
		if (b != lastb && (b in cnt))
			interleaved++
		lastb = b
		picked++
		cpus[cpu] = 1
		bat[r] = b
		rank[r] = ++cnt[b]
		bpid[b] = pid
		seq[r] = picked
		next
	}
	/ issue: / {
		r = val("rq")
		h = val("hctx")
		issued++
		if (!(r in bat)) {
			unpicked++
			next
		}
		b = bat[r]
		k = b SUBSEP h
		if (k in last) {
			pairs++
			if (rank[r] < last[k])
				inv++
		}
		last[k] = rank[r]
		if ((h in lastseq) && seq[r] < lastseq[h])
			cross++
		lastseq[h] = seq[r]
		if (pid != bpid[b])
			late++
		pend[pid] = seq[r]
		delete bat[r]
		next
	}
	/ block_rq_issue: / {
		if ((sector = rq_sector()) < 0)
			next
		g = int(sector / region)
		if ((g in dlast) && sector < dlast[g])
			dinv++
		dlast[g] = sector
		if (pid in pend)
			sec[pend[pid]] = sector
		delete pend[pid]
	}
	END {
		for (b in cnt) {
			batches++
			if (cnt[b] > 1)
				multi++
			if (cnt[b] > max)
				max = cnt[b]
			if (b in ended)
				nulls++
		}
		for (c in cpus)
			ncpu++
		for (i = 1; i <= picked; i++) {
			if (!(i in sec))
				continue
			g = int(sec[i] / region)
			if ((g in plast) && sec[i] < plast[g])
				pinv++
			plast[g] = sec[i]
		}
		print issued + 0, picked + 0, unpicked + 0, batches + 0,
		      multi + 0, max + 0, nulls + 0, pairs + 0, inv + 0,
		      interleaved + 0, cross + 0, late + 0, ncpu + 0,
		      pinv + 0, dinv + 0
	}' "$BB_TMP/trace" "$BB_TMP/trace"
}

# _order_check ROUND -- judge a round; enough when a batch had two
#   requests for one hw queue and bfq handed out requests on two CPUs
_order_check() {
	local issued picked unpicked batches multi max nulls pairs inv
	local interleaved cross late ncpu pinv dinv lost

	read -r issued picked unpicked batches multi max nulls pairs inv \
		interleaved cross late ncpu pinv dinv < <(_order_count)
	lost=$((BB_ORDER_LOST + $(_kprobe_misses "$GROUP" "${PROBES[@]}")))
	_log "round $1: $BB_ORDER_JOBS jobs, $issued requests issued" \
	     "($BB_ORDER_EXPECTED written), $picked handed out by bfq on" \
	     "$ncpu CPUs in $batches batches (one lock hold each):" \
	     "$multi of 2 requests or more, at most $max," \
	     "$nulls ended by bfq returning none;" \
	     "$pairs pairs of one batch and hw queue checked, $inv inverted;" \
	     "$interleaved picks between another batch's;" \
	     "not judged: $cross issues after a request bfq handed out later" \
	     "(across batches), $late issued by another task;" \
	     "sector order within a region inverted $pinv times in bfq's order," \
	     "$dinv in the driver's"
	if [ "$lost" -gt 0 ]; then
		_fail "the trace lost $lost events"
	elif [ "$issued" -ne "$BB_ORDER_EXPECTED" ]; then
		_fail "traced $issued requests at null_queue_rq()," \
		      "expected $BB_ORDER_EXPECTED"
	elif [ "$unpicked" -gt 0 ]; then
		_fail "$unpicked requests reached null_queue_rq() that" \
		      "bfq_dispatch_request() was not seen handing out"
	fi
	[ "$inv" -eq 0 ] ||
		_fail "$inv requests reached the driver after a request of" \
		      "their batch and hw queue that bfq handed out after them"
	[ "$interleaved" -eq 0 ] ||
		_fail "$interleaved times bfq handed out a request of one" \
		      "batch between two of another: not one lock hold each"
	[ "$pairs" -gt 0 ] && [ "$ncpu" -ge 2 ]
}

if [ "$BB_ERR" -eq 0 ] && _order_filter_issue &&
   ! _order_rounds _order_check "$GROUP" block/block_rq_issue &&
   [ "$BB_ERR" -eq 0 ] && ! _stalled; then
	_skip_later "no round had a batch with two requests for one hw queue" \
		    "and bfq handing out requests on two CPUs" \
		    "($BB_ORDER_JOBS jobs, $BB_ORDER_ROUNDS rounds)"
fi
_probes_remove

_show_result
