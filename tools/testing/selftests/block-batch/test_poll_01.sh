#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Polled writes to pages a memory-backed null_blk has not allocated yet.
# null_blk allocates a page on its first write, with GFP_NOIO, which may
# sleep.  ->poll() runs under the poller's rcu_read_lock() (io_uring:
# iocb_bio_iopoll()), so the data of a polled request must be moved at
# submission, in ->queue_rq() (which a memory-backed, and so blocking,
# device may sleep in), not in ->poll().
#
# Device: a fresh memory-backed null_blk with one poll queue.  fio
# (io_uring, --hipri) writes 16 MiB at random with crc32c verify.  A
# return probe on null_poll() adds up the requests it completed.  Fails
# when the data does not read back, ->poll() completed fewer requests
# than fio wrote (the run did not poll), or the kernel reports a sleep
# in atomic context ("BUG: sleeping function called from invalid
# context", through _show_result's dmesg check) or any other splat.
# Skips when the kernel cannot report such a sleep (no
# CONFIG_DEBUG_ATOMIC_SLEEP: no __might_resched()), null_blk cannot
# poll, or null_poll() cannot be probed.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

GROUP=bb_poll
PROBES=("r:polled null_poll ret=\$retval:s32")

_require_polled_probes
_ksym_present __might_resched ||
	_skip "the kernel cannot report a sleep in atomic context" \
	      "(CONFIG_DEBUG_ATOMIC_SLEEP)"

_prep_test "polled first writes to a memory-backed null_blk"

dev=bb_${TID}
_nullb_create_polled "$dev" size=64
trap _probe_trace_stop EXIT
_probe_trace_start 4096 "$GROUP" "${PROBES[@]}"
# only the calls that completed something
echo 'ret > 0' > "$BB_TRACEFS/events/$GROUP/polled/filter" ||
	_skip "cannot filter the null_poll() return probe"

_probe_trace_on
_watchdog_start "$dev"
fio --name=poll --filename="/dev/$dev" --ioengine=io_uring --hipri \
	--direct=1 --rw=randwrite --bs=4k --size=16M --iodepth=16 \
	--verify=crc32c --do_verify=1 > "$BB_TMP/fio.log" 2>&1
ret=$?
_watchdog_stop
_probe_trace_off
lost=$(_trace_lost)
polled=$(awk '/ polled:/ { r = $0; sub(/.*ret=/, "", r); n += r }
	END { print n + 0 }' "$BB_TRACEFS/trace")
misses=$(_kprobe_misses "$GROUP" "${PROBES[@]}")
_log "$polled requests completed by null_poll()"
[ $ret -eq 0 ] ||
	_fail "fio write+verify failed: $(tail -n 5 "$BB_TMP/fio.log")"
if [ "$lost" -ne 0 ] || [ "$misses" -ne 0 ]; then
	_skip "the trace lost $lost events, the probe missed $misses calls"
fi
# 4096 writes, and as many verify reads
[ "$polled" -ge 4096 ] ||
	_fail "null_poll() completed $polled requests, fewer than fio's 4096 writes"

_probe_trace_stop
_show_result
