#!/bin/bash
# Reproducer: bfq_insert_request() updates the cgroup debug statistics of
# its bfq_queue after it has dropped bfqd->lock.  The kernel carries a
# debug knob, bfq.insert_unlock_delay_ms, that sleeps right after that
# unlock.  One fio job writes O_DIRECT, unplugged (psync), to a null_blk
# device under bfq while the elevator is switched bfq -> none -> bfq.  The
# switch's freeze runs the queue, dispatches and completes the sleeping
# task's request, and the switch frees the bfq_queue and bfq_data while
# the task still sleeps.  Stops at the first KASAN report or after
# CYCLES switches.
set -u
DELAY=${DELAY:-100} CYCLES=${CYCLES:-40}
modprobe null_blk nr_devices=1 queue_mode=2 irqmode=0 submit_queues=1 \
	hw_queue_depth=64 gb=1 || exit 1
modprobe bfq || exit 1
q=/sys/block/nullb0/queue
echo bfq > $q/scheduler || exit 1
echo "$DELAY" > /sys/module/bfq/parameters/insert_unlock_delay_ms || exit 1
fio --name=w --filename=/dev/nullb0 --rw=randwrite --bs=4k --direct=1 \
	--ioengine=psync --time_based --runtime=600 --output=/tmp/fio.out &
fio=$!
sleep 2
n=0 hit=0
while [ $n -lt "$CYCLES" ]; do
	sleep 0.$((RANDOM % 9 + 1))
	echo none > $q/scheduler
	echo bfq > $q/scheduler
	echo "$DELAY" > /sys/module/bfq/parameters/insert_unlock_delay_ms
	n=$((n + 1))
	if dmesg | grep -q "BUG: KASAN"; then
		hit=1
		break
	fi
done
echo 0 > /sys/module/bfq/parameters/insert_unlock_delay_ms
kill -INT $fio; wait $fio
echo "UAF-REPRO: delay ${DELAY} ms, $n switches, KASAN report: $hit"
grep -E "write:|IOPS" /tmp/fio.out | head -3
exit 0
