#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# With UBLK_F_BATCH_IO, a UBLK_U_IO_COMMIT_IO_CMDS completes its requests
# through blk_mq_end_request_batch().  Count, from block_rq_complete events
# between a kprobe and a kretprobe on blk_mq_end_request_batch(), how many
# of the device's reads and writes complete inside such a call: every one,
# in both directions, with page copy and with user copy.
# blk_update_request() reports each request once outside the call, and
# blk_mq_end_request_batch() once more inside it.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

ERR_CODE=0

if ! _have_program fio; then
	exit "$UBLK_SKIP_CODE"
fi
if ! _have_feature "BATCH_IO"; then
	exit "$UBLK_SKIP_CODE"
fi
TRACE=/sys/kernel/tracing
[ -w "$TRACE/kprobe_events" ] || TRACE=/sys/kernel/debug/tracing
if [ ! -w "$TRACE/kprobe_events" ] ||
   [ ! -d "$TRACE/events/block/block_rq_complete" ]; then
	echo "no kprobe events or block tracepoints in $TRACE"
	exit "$UBLK_SKIP_CODE"
fi

_prep_test "batch" "reads and writes complete in completion batches"

# page copy, and user copy (its data copied by the server), each a device
dev_ids=()
for mode in "" "-u"; do
	dev_id=$(_add_ublk_dev -t null -q 1 -b $mode)
	_check_add_dev $TID $?
	dev_ids+=("$dev_id")
done

# "7 (expanded: 1408)" until the buffer is first used
buffer_kb=$(awk '{ print $2 == "(expanded:" ? $3 + 0 : $1 }' "$TRACE/buffer_size_kb")
tracing_on=$(cat "$TRACE/tracing_on")
echo 16384 > "$TRACE/buffer_size_kb"
echo 'p:ublk_batch/batch_start blk_mq_end_request_batch' >> "$TRACE/kprobe_events"
echo 'r:ublk_batch/batch_end blk_mq_end_request_batch' >> "$TRACE/kprobe_events"

# _count_batches RW: "requests batched calls" for 2048 4 KiB direct I/Os
# (the device's requests, outside and inside blk_mq_end_request_batch(),
# and the calls with at least one of them)
_count_batches() {
	local ret

	echo > "$TRACE/trace"
	echo 1 > "$TRACE/events/ublk_batch/enable"
	echo 1 > "$TRACE/events/block/block_rq_complete/enable"
	echo 1 > "$TRACE/tracing_on"
	fio --name=batch --filename=/dev/ublkb"$dev_id" --rw="$1" --bs=4k \
		--size=8M --direct=1 --ioengine=io_uring --iodepth=32 \
		--iodepth_batch_submit=8 --iodepth_batch_complete_min=8 \
		> /dev/null 2>&1
	ret=$?
	echo 0 > "$TRACE/events/block/block_rq_complete/enable"
	echo 0 > "$TRACE/events/ublk_batch/enable"
	if [ $ret -ne 0 ]; then
		echo "$1: fio failed" >&2
		echo "0 0 0"
		return
	fi
	if grep -q '^overrun: [1-9]' "$TRACE"/per_cpu/cpu*/stats; then
		echo "$1: the trace buffer overran" >&2
		echo "0 0 0"
		return
	fi
	awk -v dev="$majmin" '
	{
		if (!match($0, /\[[0-9]+\]/))
			next
		cpu = substr($0, RSTART, RLENGTH)
	}
	/ batch_start: / { depth[cpu]++; next }
	/ batch_end: / {
		if (depth[cpu] > 0 && --depth[cpu] == 0 && n[cpu]) {
			calls++
			batched += n[cpu]
		}
		n[cpu] = 0
		next
	}
	/ block_rq_complete: / {
		if (!match($0, /block_rq_complete: [0-9]+,[0-9]+ /))
			next
		split(substr($0, RSTART + 19), f, " ")
		if (f[1] != dev)
			next
		if (depth[cpu] > 0)
			n[cpu]++
		else
			requests++
	}
	END { printf "%d %d %d\n", requests, batched, calls }' "$TRACE/trace"
}

modes=("page copy" "user copy")
for m in 0 1; do
	dev_id=${dev_ids[$m]}
	majmin=$(($(stat -c '0x%t' /dev/ublkb"$dev_id"))),$(($(stat -c '0x%T' /dev/ublkb"$dev_id")))
	for rw in randread randwrite; do
		read -r requests batched calls < <(_count_batches $rw)
		per=$(awk -v b="$batched" -v c="$calls" \
			'BEGIN { printf "%.1f", c ? b / c : 0 }')
		echo "${modes[$m]}, $rw: $batched of $requests requests" \
			"completed in $calls completion batches ($per per batch)"
		# fewer than 2048 where fio's random I/Os happen to merge
		if [ "${requests:-0}" -lt 1024 ] || [ "$batched" -ne "$requests" ]; then
			ERR_CODE=255
		fi
	done
done
missed=$(awk '$1 ~ /batch_(start|end)$/ { m += $3 } END { print m + 0 }' \
	"$TRACE/kprobe_profile")
if [ "$missed" -ne 0 ]; then
	echo "the probes on blk_mq_end_request_batch() missed $missed calls"
	ERR_CODE=255
fi

echo '-:ublk_batch/batch_start' >> "$TRACE/kprobe_events"
echo '-:ublk_batch/batch_end' >> "$TRACE/kprobe_events"
echo "$buffer_kb" > "$TRACE/buffer_size_kb"
echo "$tracing_on" > "$TRACE/tracing_on"
echo > "$TRACE/trace"

_cleanup_test

_show_result $TID $ERR_CODE
