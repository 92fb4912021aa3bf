#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Polled I/O that waits in the scheduler for the one driver tag.  A polled
# bio's cookie names the hardware queue that bio_poll() polls for it.  A
# request that has not started (in the scheduler, or on the dispatch list
# for a driver tag) must be pollable too: polling it is what completes
# the requests that hold the driver tag.  io_uring with IOPOLL depends on
# it: io-wq issues the requests that found no scheduler tag and adds them
# to the ring's poll list under ctx->uring_lock, which the reaping task
# holds while it polls the requests already listed.  When every listed
# request waits for the driver tag, and the one that holds it belongs to
# a worker that waits for the lock, nothing polls the queue until the
# request times out.
#
# Device: a null_blk that keeps no data, one submit queue and one poll
# queue, hw_queue_depth=1, under mq-deadline with nr_requests 4, and an
# I/O timeout of 60 s (null_blk's own is 5 s).  fio (io_uring, --hipri,
# iodepth 32, at least 4 completions reaped per call) reads and writes
# 8 MiB at random, six times.  A kprobe counts the requests that io-wq
# issued (io_wq_submit_work()).
# Fails when fio fails (a request timed out: "timeout error" for the
# device in the kernel log), when it stalls (the watchdog), on any splat
# (with CONFIG_DETECT_HUNG_TASK and a hung-task timeout under 60 s, the
# detector names an io-wq worker blocked on a mutex owned by the reaping
# fio task before the request times out), or when a tag is not back once
# idle (_check_idle).
# Skips when io-wq issued nothing (the scheduler tags never ran out: the
# path was not reached), mq-deadline is not available, null_blk cannot
# poll, or io_wq_submit_work() cannot be probed.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

GROUP=bb_poll2
PROBES=("wq io_wq_submit_work")

_require_polled_probes

_prep_test "polled I/O waiting in the scheduler for the one driver tag"

dev=bb_${TID}
# Not memory backed: the test needs no data back.
_nullb_create_polled "$dev" memory_backed=0 submit_queues=1 hw_queue_depth=1
_require_sched "$dev" mq-deadline || _skip "mq-deadline is not available"
_set_sched "$dev" mq-deadline || _fail "cannot select mq-deadline"
echo 4 > "/sys/block/$dev/queue/nr_requests" || _fail "cannot set nr_requests 4"
echo 60000 > "/sys/block/$dev/queue/io_timeout" ||
	_fail "cannot set io_timeout 60000"
trap _probe_trace_stop EXIT
_probe_trace_start 4096 "$GROUP" "${PROBES[@]}"

timeouts0=$(dmesg | grep -c "timeout error, dev $dev,")
rounds=0
_probe_trace_on
_watchdog_start "$dev"
while [ "$BB_ERR" -eq 0 ] && [ $rounds -lt 6 ]; do
	rounds=$((rounds + 1))
	fio --name=poll2 --filename="/dev/$dev" --ioengine=io_uring --hipri \
		--direct=1 --rw=randrw --bs=4k --size=8M --iodepth=32 \
		--iodepth_batch_complete_min=4 > "$BB_TMP/fio.log" 2>&1 &
	_wait_pid $!
	_fio_ok $? "$BB_TMP/fio.log" && continue
	timeouts=$(( $(dmesg | grep -c "timeout error, dev $dev,") - timeouts0 ))
	_fail_io "round $rounds: polled fio through mq-deadline failed;" \
		 "$timeouts request(s) of $dev timed out"
done
_watchdog_stop
_probe_trace_off
lost=$(_trace_lost)
wq=$(grep -c ' wq:' "$BB_TRACEFS/trace")
_log "$rounds rounds of 8 MiB of polled I/O, $wq requests issued by io-wq," \
     "$lost trace events lost"
_stalled || _check_idle mq-deadline "$dev"
if [ "$BB_ERR" -eq 0 ] && [ "$wq" -eq 0 ]; then
	[ "$lost" -eq 0 ] ||
		_skip "the trace lost $lost events: io-wq's issues not counted"
	_skip "io-wq issued no request: the scheduler tags never ran out"
fi
_probe_trace_stop
_show_result
