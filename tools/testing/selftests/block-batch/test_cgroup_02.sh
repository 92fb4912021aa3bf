#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An io.latency target on a disk that goes away.  Deleting the disk
# deactivates blk-iolatency (rq_qos_exit() -> blkcg_iolatency_exit()),
# which offlines the policy data of each cgroup: iolatency_pd_offline()
# clears the target and, for the last one, queues the enable_work of
# struct blk_iolatency.  That must not be freed with the work still
# queued: debugobjects (CONFIG_DEBUG_OBJECTS_WORK) reports "free active
# object" at the kfree(), a WARNING; without it the worker runs the work
# on freed memory later (a NULL pointer dereference in
# process_scheduled_works() has been seen).
# CYCLES times: a null_blk, an io.latency target for a cgroup on it, the
# null_blk deleted.  Fails on a splat (_check_dmesg).  Skips without
# io.latency or debugobjects, or when a kprobe on iolatency_pd_offline()
# (an ops callback, never inlined) saw fewer than CYCLES calls: the path
# was not driven.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

CYCLES=${CYCLES:-8}
GROUP=bb_cgroup_02

_require_root
_require_null_blk
_require_debugfs
[ -r /sys/kernel/debug/debug_objects/stats ] ||
	_skip "no debugobjects (CONFIG_DEBUG_OBJECTS_WORK): it reports a" \
	      "work freed while queued"
trap '_probe_trace_stop; _cg_cleanup' EXIT
_require_cgroup_io
_require_tracefs
_require_kprobes
_prep_test "an io.latency target on a null_blk that is deleted, $CYCLES times"

cg=$BB_CG_ROOT/bb_$TID
_cg_make "$cg"
[ -e "$cg/io.latency" ] ||
	_skip "no io.latency: the kernel has no CONFIG_BLK_CGROUP_IOLATENCY"
_ksym_present iolatency_pd_offline ||
	_skip "no iolatency_pd_offline() to probe"
_probe_trace_start 64 "$GROUP" "offline iolatency_pd_offline"
_probe_trace_on

dev=bb_$TID
for i in $(seq "$CYCLES"); do
	_nullb_create "$dev" || _skip "cannot create a null_blk device"
	if ! echo "$(cat "/sys/block/$dev/dev") target=10000" > "$cg/io.latency"; then
		_fail "the kernel refused an io.latency target for $dev"
		break
	fi
	_nullb_destroy "$dev"
	BB_NULLB_NAMES=()
done
# the workers run what the deletions queued
sleep 1
_probe_trace_off
offlines=$(_kprobe_hits "$GROUP" offline)
_probe_trace_stop
_log "$i null_blks deleted with an io.latency target;" \
     "$offlines iolatency_pd_offline() calls"
[ "$BB_ERR" -ne 0 ] || [ "$offlines" -ge "$CYCLES" ] ||
	_skip "$offlines iolatency_pd_offline() calls for $CYCLES deletions:" \
	      "the deactivation was not driven"

_show_result
