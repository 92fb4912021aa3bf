#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Dispatch order through mq-deadline on a multi-queue null_blk.
#
# Device: one null_blk, merging off.  One fio job per CPU (at most four),
# each pinned to its own CPU and writing its own region sequentially in
# bursts of 32 requests per io_submit() (common_order.sh); a burst is
# inserted into mq-deadline under one lock hold, and every CPU's hw queue
# run dispatches from the one shared mq-deadline queue.
#
# block:block_rq_issue (the driver's ->queue_rq()) is traced with a global
# clock, and for each region the test counts inversions: a request issued
# after a request of the same region with a higher sector.  With the
# scheduler lock held across a whole dispatch batch, a batch that starts at
# a burst carries the whole burst, so any inversion fails the test.  Skips
# with fewer than 2 CPUs, without mq-deadline, or when no request was
# issued by a CPU other than its writer's (no concurrent dispatch).
# bfq's order is checked batch by batch in test_order_02.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh
. "$(cd "$(dirname "$0")" && pwd)"/common_order.sh

_order_require

_prep_test "dispatch order of sequential bursts through mq-deadline"

_order_setup mq-deadline

# _order_count -- "issued inversions foreign" of $BB_TMP/trace.  Per
# region: issued requests, inversions, requests issued by a CPU other than
# the one the region's job runs on (dispatched by another CPU's run).
_order_count() {
	awk -v region=$((BB_ORDER_REGION_MB * 2048)) "$BB_ORDER_AWK_SECTOR"'
		/block_rq_issue:/ {
			if (!match($0, /\[[0-9]+\]/))
				next
			cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0
			if ((sector = rq_sector()) < 0)
				next
			r = int(sector / region)
			n++
			if ((r in last) && sector < last[r])
				inv++
			last[r] = sector
			if (cpu != r)
				foreign++
		}
		END { printf "%d %d %d\n", n, inv, foreign }' "$BB_TMP/trace"
}

# _order_check ROUND -- judge a round; enough when a request was issued by
# another CPU than its writer's (concurrent dispatch)
_order_check() {
	local issued inversions foreign

	read -r issued inversions foreign < <(_order_count)
	_log "$BB_ORDER_JOBS jobs, $issued requests issued ($BB_ORDER_EXPECTED written)," \
	     "$foreign issued by another CPU, $inversions inversions (round $1)"
	if [ "$issued" -ne "$BB_ORDER_EXPECTED" ]; then
		_fail "traced $issued requests, expected $BB_ORDER_EXPECTED (lost events?)"
	fi
	if [ "$inversions" -ne 0 ]; then
		_fail "$inversions dispatch order inversions"
	fi
	[ "$foreign" -gt 0 ]
}

if [ "$BB_ERR" -eq 0 ] && _order_filter_issue &&
   ! _order_rounds _order_check block/block_rq_issue &&
   [ "$BB_ERR" -eq 0 ] && ! _stalled; then
	# No CPU dispatched another CPU's requests: there was no
	# concurrent dispatch, so nothing could have been reordered.
	_skip_later "no request was issued by a CPU other than its" \
		    "writer's ($BB_ORDER_JOBS jobs, $BB_ORDER_ROUNDS rounds):" \
		    "no concurrent dispatch to check"
fi
_order_trace_restore

_show_result
