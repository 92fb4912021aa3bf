#!/bin/bash
# blktests nvme/058 with the fc transport (nvme-fcloop), run N times by
# blktests' own ./check (bb.rounds=N on the kernel command line, default
# 8).  After each run: the run's verdict and how many warnings of
# blk_mq_unquiesce_queue() (a quiesce depth that would go below zero)
# the kernel log holds.  The once-only flag of WARN_ON_ONCE() is cleared
# before each run, so that every run can warn again.
rounds=8
for a in $(cat /proc/cmdline); do
	case $a in bb.rounds=*) rounds=${a#bb.rounds=} ;; esac
done
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
cd /blktests || exit 1
printf '%s\n' 'NVMET_TRTYPES="fc"' 'NVME_IMG_SIZE=256M' > config
echo "BB-058 kernel $(uname -r) rounds $rounds"
warned=0 failed=0
for ((i = 1; i <= rounds; i++)); do
	echo 1 > /sys/kernel/debug/clear_warn_once
	before=$(dmesg | grep -c 'blk_mq_unquiesce_queue')
	./check nvme/058 2>&1 | cat
	rc=${PIPESTATUS[0]}
	after=$(dmesg | grep -c 'blk_mq_unquiesce_queue')
	[ "$rc" -eq 0 ] || failed=$((failed + 1))
	[ "$after" -gt "$before" ] && warned=$((warned + 1))
	echo "BB-058 round $i rc=$rc unquiesce-warning-lines=$((after - before))"
done
echo "BB-058 summary: $warned of $rounds runs warned in blk_mq_unquiesce_queue, $failed of $rounds failed"
