#!/bin/bash
# Polled io_uring with scheduler tags exhausted: repeat the workload and
# count null_blk request timeouts; sample the stacks of the fio threads.
arg() { sed -n "s/.*bb\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
N=$(arg n); N=${N:-10}
DEPTH=$(arg depth); DEPTH=${DEPTH:-2}
JOBS=$(arg jobs); JOBS=${JOBS:-2}
TMO=$(arg tmo); TMO=${TMO:-5000}
modprobe null_blk nr_devices=0 2>/dev/null
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
D=/sys/kernel/config/nullb/bbp
mkdir $D
for kv in memory_backed=0 blocksize=4096 size=256 submit_queues=1 poll_queues=1 hw_queue_depth=$DEPTH irqmode=0; do
	echo ${kv#*=} > $D/${kv%%=*} || echo "POLLX cannot set $kv"
done
echo 1 > $D/power
echo mq-deadline > /sys/block/bbp/queue/scheduler
echo 4 > /sys/block/bbp/queue/nr_requests
echo $TMO > /sys/block/bbp/queue/io_timeout
echo "POLLX kernel $(uname -r) depth $DEPTH jobs $JOBS sched $(cat /sys/block/bbp/queue/scheduler) nr_requests $(cat /sys/block/bbp/queue/nr_requests) timeout $(cat /sys/block/bbp/queue/io_timeout)"
. /extra/watch.sh
watch &
wp=$!
fails=0
for i in $(seq $N); do
	t0=$(dmesg | grep -c 'timed out')
	s0=$EPOCHREALTIME
	fio --name=x --filename=/dev/bbp --ioengine=io_uring --direct=1 --hipri \
		--rw=randrw --bs=4k --iodepth=32 --numjobs=$JOBS --size=4M \
		--offset_increment=4M --iodepth_batch_complete_min=4 \
		--group_reporting > /tmp/fio.log 2>&1
	rc=$?
	t1=$(dmesg | grep -c 'timed out')
	echo "POLLX run $i rc=$rc timeouts=$((t1 - t0)) s=$(awk -v a=$s0 -v b=$EPOCHREALTIME 'BEGIN{printf "%.1f", b-a}')"
	[ $rc -ne 0 ] && fails=$((fails + 1))
done
kill $wp
echo "POLLX done runs=$N failed=$fails"
dmesg | grep -E 'timed out|timeout error|WARNING|BUG' | head -20 | sed 's/^/POLLX dmesg /'
