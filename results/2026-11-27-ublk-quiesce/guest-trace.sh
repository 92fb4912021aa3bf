#!/bin/bash
# ublk QUIESCE_DEV with requests held by the server: does the device
# reach QUIESCED?  fault_inject target delays each I/O by DELAY us.
K=/kselftest/ublk/kublk
modprobe -q ublk_drv
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
echo 16384 > $T/buffer_size_kb
state() { timeout 10 $K list -n "$1" 2>/dev/null | sed -n 's/.* state \([A-Z_]*\).*/\1/p' | head -1; }
dpid() { timeout 10 $K list -n "$1" 2>/dev/null | sed -n 's/.* daemon pid \(-\{0,1\}[0-9]*\) .*/\1/p' | head -1; }
for DELAY in 200000 0; do
for run in 1 2 3; do
	for d in 0 1 2 3; do $K del -n $d >/dev/null 2>&1; done
	$K add -t fault_inject -n 0 -q 1 -d 8 -r 1 -i 1 --delay_us $DELAY > /tmp/add.log 2>&1 ||
		{ echo "UQ add failed: $(head -c 300 /tmp/add.log)"; continue; }
	sleep 1
	echo "UQ add state=$(state 0) flags=$($K list -n 0 | grep -o 'flags 0x[0-9a-f]*')"
	timeout 60 fio --name=j --filename=/dev/ublkb0 --ioengine=libaio --direct=1 --rw=randread \
		--bs=4k --iodepth=4 --runtime=30 --time_based --size=64M > /dev/null 2>&1 &
	fpid=$!
	sleep 2
	inflight=$(cat /sys/block/ublkb0/inflight | tr -s ' ')
	echo > $T/trace
	echo 1 > $T/events/io_uring/io_uring_submit_req/enable
	echo 1 > $T/events/io_uring/io_uring_complete/enable
	echo 1 > $T/tracing_on
	t0=$EPOCHREALTIME
	timeout 30 $K quiesce -n 0; rc=$?
	t1=$EPOCHREALTIME
	s=
	for i in $(seq 1 20); do s=$(state 0); [ "$s" = QUIESCED ] && break; sleep 1; done
	echo "UQ delay_us=$DELAY run=$run inflight_before=[$inflight] quiesce_rc=$rc quiesce_s=$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}') state_after_${i}s=$s inflight_after=[$(cat /sys/block/ublkb0/inflight | tr -s ' ')]"
	echo 0 > $T/tracing_on
	[ "$s" != QUIESCED ] && grep -v '^#' $T/trace | tail -300 | sed 's/^/UT /'
	if [ "$s" != QUIESCED ]; then
		pid=$(dpid 0)
		echo "UQ daemon pid=$pid threads:"; for t in /proc/$pid/task/*; do echo "UQ  $(cat $t/comm) $(cat $t/wchan) $(grep State $t/status)"; done
		kill -9 $pid 2>/dev/null
		sleep 2
		echo "UQ after SIGKILL state=$(state 0)"
	fi
	timeout 30 $K recover -t fault_inject -n 0 -q 1 -d 8 --delay_us 0 > /dev/null 2>&1
	echo "UQ after recover state=$(state 0)"
	kill $fpid 2>/dev/null; timeout 40 tail --pid=$fpid -f /dev/null
	timeout 30 $K del -n 0 > /dev/null 2>&1
done
done
echo UQ done
