# SPDX-License-Identifier: GPL-2.0
#
# bfq's part of completion batches (blk_mq_end_request_batch()), counted
# from the trace of kprobes on bfq_finish_requests() and
# bfq_finish_request(), and a device's completed requests.
# Sourced by test_complete_NN.sh after test_common.sh.

# _bfq_finish_counts [Q] -- from the trace of _probe_trace_start's events "bfq"
#   (bfq_finish_requests(), with nr=) and "bfq1" (bfq_finish_request()):
#   "CALLS REQUESTS MAX SINGLES", the bfq_finish_requests() calls, the
#   requests they finished, the most in one call, and the
#   bfq_finish_request() calls.  With Q, only the events whose q= field
#   is Q (the request queue of the first request handed to bfq).
_bfq_finish_counts() {
	awk -v q="${1:-}" '
		/^#/ { next }
		q != "" && index($0 " ", " q=" q " ") == 0 { next }
		/ bfq:/ { n = $0; sub(/.*nr=/, "", n); n += 0
			  f++; r += n; if (n > m) m = n }
		/ bfq1:/ { one++ }
		END { print f + 0, r + 0, m + 0, one + 0 }' "$BB_TRACEFS/trace"
}

# _bfq_batch_sizes WHAT CALLS MAX -- bfq_finish_requests() was called
#   (CALLS times) and never handed more than 32 requests (MAX at most)
_bfq_batch_sizes() {
	local what=$1 calls=$2 max=$3

	[ "$calls" -gt 0 ] ||
		_fail "$what: completion batches never reached bfq_finish_requests()"
	[ "$max" -le 32 ] ||
		_fail "$what: $max requests finished under one lock hold (more than 32)"
}

# _bfq_finished_once WHAT DEV IOS MERGES FINISHED -- bfq finished each of
#   the IOS requests DEV completed (its stat) once: FINISHED requests
#   (batched and single finishes) are at least IOS, and at most IOS plus
#   the MERGES (a merged request is freed through bfq too)
_bfq_finished_once() {
	local what=$1 dev=$2 ios=$3 merges=$4 fin=$5

	if [ "$ios" -eq 0 ]; then
		_fail "$what: no completed request in /sys/block/$dev/stat (iostats off?)"
	elif [ "$fin" -lt "$ios" ]; then
		_fail "$what: $ios requests completed, but only $fin finished by bfq"
	elif [ "$fin" -gt $((ios + merges)) ]; then
		_fail "$what: $fin requests finished, more than the $ios completed" \
		      "and $merges merged: some finished twice"
	fi
}

# _stat_ios DEV -- "READS+WRITES MERGES" completed by DEV so far (its stat)
_stat_ios() {
	local st

	read -ra st < "/sys/block/$1/stat"
	echo "$((st[0] + st[4])) $((st[1] + st[5]))"
}
