#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocations under the locks that blk-cgroup and the rq_qos policies take
# inside a queue freeze.  blkcg_activate_policy() takes q->blkcg_mutex, and
# ioc_qos_write() q->rq_qos_mutex, with the queue frozen; an allocation
# that may recurse into I/O (fs_reclaim, which lockdep orders before a
# queue's q_usage_counter from blk_alloc_queue() on) under either lock
# closes a cycle.  On a fresh null_blk, the first configuration of each
# policy allocates under those locks:
#   io.max of CHILDREN cgroups   blk_throtl_init() (rq_qos_mutex), and a
#                                radix tree preload for each new blkg in
#                                blkg_conf_prep() (blkcg_mutex)
#   io.latency of a cgroup       blk_iolatency_init() (rq_qos_mutex)
#   io.cost.model                blk_iocost_init() (rq_qos_mutex)
# and then io.cost.qos freezes the queue and takes q->rq_qos_mutex.
# The radix tree preload allocates only when this CPU's pool of preloaded
# nodes is short, and a pool once full rarely is: the writes run on a CPU
# just taken offline and back, which frees its pool.
# Fails on a lockdep report ("possible circular locking dependency":
# _check_dmesg), on a write the kernel refuses, or when lockdep turned
# itself off.  Skips without lockdep, cgroup2's io controller, one of
# io.max, io.latency and io.cost.qos (CONFIG_BLK_DEV_THROTTLING,
# CONFIG_BLK_CGROUP_IOLATENCY, CONFIG_BLK_CGROUP_IOCOST), or a CPU other
# than CPU 0 that can go offline and back (CONFIG_HOTPLUG_CPU).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

CHILDREN=${CHILDREN:-4}

_require_root
_require_null_blk
_require_program taskset
_require_lockdep
# a CPU that the test took offline comes back on every exit
cpu_off=
trap '[ -z "$cpu_off" ] || echo 1 > "$cpu_off"; _cg_cleanup' EXIT
_require_cgroup_io
_prep_test "first io.max, io.latency and io.cost.model of a fresh disk," \
	"then io.cost.qos: allocations under locks taken in a queue freeze"

dev=bb_$TID
_nullb_create "$dev" || _skip "cannot create a null_blk device"
devno=$(cat "/sys/block/$dev/dev")
for i in $(seq "$CHILDREN"); do
	_cg_make "$BB_CG_ROOT/bb_${TID}_$i"
done
cg1=$BB_CG_ROOT/bb_${TID}_1
[ -e "$cg1/io.max" ] ||
	_skip "no io.max: the kernel has no CONFIG_BLK_DEV_THROTTLING"
[ -e "$cg1/io.latency" ] ||
	_skip "no io.latency: the kernel has no CONFIG_BLK_CGROUP_IOLATENCY"
[ -e "$BB_CG_ROOT/io.cost.qos" ] ||
	_skip "no io.cost.qos: the kernel has no CONFIG_BLK_CGROUP_IOCOST"

# the last CPU, offline and back: its radix tree preload pool is empty,
# so the first preload on it allocates; this shell moves there
cpus=(/sys/devices/system/cpu/cpu[0-9]*)
cpu=$((${#cpus[@]} - 1))
online=/sys/devices/system/cpu/cpu$cpu/online
if [ "$cpu" -eq 0 ] || [ ! -w "$online" ] || [ "$(cat "$online")" != 1 ]; then
	_skip "no CPU but CPU 0, or CPU $cpu is offline or cannot go" \
	      "offline (CONFIG_HOTPLUG_CPU): the preload pool would stay full"
fi
echo 0 > "$online" || _skip "cannot take CPU $cpu offline"
cpu_off=$online
echo 1 > "$online" || _fail "cannot bring CPU $cpu back online"
[ "$(cat "$online")" != 1 ] || cpu_off=
taskset -p -c "$cpu" $$ > /dev/null || _skip "cannot move to CPU $cpu"
for i in $(seq "$CHILDREN"); do
	_cg_write "$BB_CG_ROOT/bb_${TID}_$i/io.max" "$devno rbps=1048576"
done
_cg_write "$cg1/io.latency" "$devno target=10000"
_cg_write "$BB_CG_ROOT/io.cost.model" "$devno ctrl=user model=linear" \
	"rbps=2000000000 rseqiops=80000 rrandiops=80000" \
	"wbps=2000000000 wseqiops=80000 wrandiops=80000"
_cg_write "$BB_CG_ROOT/io.cost.qos" "$devno enable=1"
_log "io.max of $CHILDREN cgroups, io.latency, io.cost.model, then" \
     "io.cost.qos written for $dev ($devno)"
# iocost off again, and the disk deleted (which tears the policies down)
# before the verdict, so that a report of the teardown is this test's
echo "$devno enable=0" > "$BB_CG_ROOT/io.cost.qos" 2>/dev/null
_nullb_destroy "$dev"

_show_result
