#!/bin/bash
# kublk del of a null device per mode: how long del takes and when the
# kernel releases /dev/ublkcN (ublk_ch_release), against markers written
# before and after del.
K=/kselftest/ublk/kublk
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
modprobe -q ublk_drv
echo 'p:zd/rel ublk_ch_release' >> $T/kprobe_events || echo "ZCDEL no kprobe"
echo 'p:zd/stopdev ublk_stop_dev' >> $T/kprobe_events || echo "ZCDEL no kprobe stopdev"
echo 1 > $T/events/zd/enable
echo 16384 > $T/buffer_size_kb
echo 1 > $T/tracing_on
n=0
for mode in plain -z --auto_zc -u -b "-z -b"; do
	for run in 1 2 3; do
		opts=$mode; [ "$mode" = plain ] && opts=
		if ! timeout 60 $K add -t null -n 0 -q 1 -d 32 $opts > /tmp/add.log 2>&1; then
			echo "ZCDEL mode=$mode run=$run add-failed $(head -c 300 /tmp/add.log | tr '\n' ' ')"
			continue
		fi
		sleep 1
		dd if=/dev/zero of=/dev/ublkb0 bs=64k count=64 oflag=direct 2>/dev/null
		dd if=/dev/ublkb0 of=/dev/null bs=64k count=64 iflag=direct 2>/dev/null
		pid=$(pgrep -f "kublk add" | head -1)
		echo "del-begin mode=$mode run=$run" > $T/trace_marker
		t0=$EPOCHREALTIME
		timeout 60 $K del -n 0
		rc=$?
		t1=$EPOCHREALTIME
		echo "del-end mode=$mode run=$run" > $T/trace_marker
		alive=no; [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && alive=yes
		echo "ZCDEL mode=$mode run=$run rc=$rc del_s=$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b-a}') server_alive_after=$alive"
	done
done
echo 0 > $T/tracing_on
echo "ZCDEL-TRACE-BEGIN"
grep -v '^#' $T/trace | sed 's/^/ZT /'
echo "ZCDEL-TRACE-END"
