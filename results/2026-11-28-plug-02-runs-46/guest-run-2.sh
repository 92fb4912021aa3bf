#!/bin/bash
# test_plug_02 repeated in one guest: its verdict and summary lines per run
cd /kselftest/block-batch
for i in $(seq 5); do
	./test_plug_02.sh > /tmp/t.log 2>&1
	echo "PLUG2 run $i rc=$?"
	grep -E "plug_02: " /tmp/t.log | grep -v "dmesg\|progress" | sed "s/^/PLUG2 $i /" | cut -c1-300
done
