#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An io.latency target on a disk that goes away.  Deleting the disk
# deactivates blk-iolatency (rq_qos_exit() -> blkcg_iolatency_exit()),
# which offlines the policy data of each blkg: iolatency_pd_offline()
# clears the target and, for the last one, queues the enable_work of
# struct blk_iolatency.  That must not be freed with the work still
# queued: debugobjects (CONFIG_DEBUG_OBJECTS_FREE and _WORK) counts a
# "free active object" warning at the kfree(); without it the worker
# runs the work on freed memory later (a NULL pointer dereference in
# process_scheduled_works() has been seen).
# CYCLES times: a null_blk, an io.latency target for a cgroup on it, the
# null_blk deleted.  Fails when debugobjects' warning count went up
# during the loop (it counts past the five reports that it prints), or
# on a splat (_check_dmesg).  Skips without io.latency or debugobjects'
# free and work checks, when debugobjects turned itself off, or when a
# kprobe on iolatency_pd_offline() (an ops callback, never inlined) saw
# fewer than two calls a deletion (the root's blkg and the cgroup's):
# the path was not driven.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

CYCLES=${CYCLES:-8}
GROUP=bb_cgroup_02

_require_root
_require_null_blk
_require_debugfs
ODEBUG_STATS=/sys/kernel/debug/debug_objects/stats
if [ ! -r "$ODEBUG_STATS" ] || ! _ksym_present debug_check_no_obj_freed ||
   ! _ksym_present work_fixup_free; then
	_skip "no debugobjects with its free and work checks" \
	      "(CONFIG_DEBUG_OBJECTS_FREE, CONFIG_DEBUG_OBJECTS_WORK): they" \
	      "count a work freed while queued"
fi
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

# _odebug_warnings -- debugobjects' count of the problems it found
_odebug_warnings() {
	awk '$1 == "warnings" { print $3 }' "$ODEBUG_STATS"
}

dev=bb_$TID
warn0=$(_odebug_warnings)
deleted=0
for _ in $(seq "$CYCLES"); do
	_nullb_create "$dev" || _skip "cannot create a null_blk device"
	_cg_write "$cg/io.latency" "$(cat "/sys/block/$dev/dev") target=10000" ||
		break
	_nullb_destroy "$dev"
	deleted=$((deleted + 1))
done
# the workers run what the deletions queued
sleep 1
_probe_trace_off
offlines=$(_kprobe_hits "$GROUP" offline)
_probe_trace_stop
warns=$(($(_odebug_warnings) - warn0))
_log "$deleted null_blks deleted with an io.latency target;" \
     "$offlines iolatency_pd_offline() calls; $warns debugobjects warnings"
[ "$warns" -eq 0 ] ||
	_fail "debugobjects found $warns problems in $deleted deletions" \
	      "(a work freed while queued: see dmesg)"
if dmesg | grep -q "ODEBUG disabled"; then
	_skip_later "debugobjects turned itself off: it no longer counts"
elif [ "$offlines" -lt $((2 * CYCLES)) ]; then
	_skip_later "$offlines iolatency_pd_offline() calls for $CYCLES" \
		    "deletions (2 each expected): the deactivation was not driven"
fi

_show_result
