#!/bin/bash
echo "RQ start"
modprobe null_blk nr_devices=1 2>&1
mm=$(cat /sys/block/nullb0/dev)
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
echo +io > /sys/fs/cgroup/cgroup.subtree_control
echo "$mm ctrl=user model=linear rbps=2000000000 rseqiops=80000 rrandiops=80000 wbps=2000000000 wseqiops=80000 wrandiops=80000" > /sys/fs/cgroup/io.cost.model; echo "RQ io.cost.model rc=$?"
echo "$mm enable=1" > /sys/fs/cgroup/io.cost.qos; echo "RQ io.cost.qos rc=$?"
echo "RQ debug_locks after: $(awk '$1=="debug_locks:"{print $2}' /proc/lockdep_stats)"
dmesg | grep -E "circular locking|-> #|acquire lock|holding lock" | sed 's/^/RQ /'
dmesg | grep -A12 -E "^.{15}-> #" | grep -E "blk_|ioc_|tg_|pcpu|iocost" | sed 's/^/RQS /' | head -30
