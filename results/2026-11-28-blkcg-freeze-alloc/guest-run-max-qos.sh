#!/bin/bash
# rq_qos_mutex -> fs_reclaim, then a queue freeze -> rq_qos_mutex
echo "RQ start"
modprobe null_blk nr_devices=1 2>&1
sleep 1
mm=$(cat /sys/block/nullb0/dev)
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
echo +io > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/rq
echo "RQ debug_locks before: $(awk '$1=="debug_locks:"{print $2}' /proc/lockdep_stats)"
echo "$mm rbps=1048576" > /sys/fs/cgroup/rq/io.max; echo "RQ io.max rc=$?"
echo "$mm enable=1" > /sys/fs/cgroup/io.cost.qos; echo "RQ io.cost.qos rc=$?"
echo "RQ debug_locks after: $(awk '$1=="debug_locks:"{print $2}' /proc/lockdep_stats)"
dmesg | grep -E "circular locking|-> #|rq_qos_mutex|blk_throtl_init" | sed 's/^/RQ /'
