#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bfq moves a task's queue to its new cgroup at the task's next request:
# bfq_init_rq() runs bfq_bic_update_cgroup() for every request it
# inserts.  bfq_bio_merge() no longer does it while the merge hash is
# empty, so on a device that keeps up, insertion is where the move
# happens.
# A cgroup-v1 hierarchy with blkio is mounted (for bfq's per-group debug
# statistics); fio writes 4k at random, one at a time (psync: the merge
# hash is empty at each bio), to a null_blk under bfq with slice_idle 0,
# so that fio's queue leaves the busy queues (blkio.bfq.dequeue of its
# group) once per write or so.  fio starts in cgroup A; after WRITES
# writes it is moved to cgroup B, and runs WRITES more.
# Fails when no dequeue of fio's queue is counted in B after the move, or
# more in A than in B (the queue stayed in A's group); and, as
# test_cgroup_03, when a removed cgroup is still held with the disk gone
# or the io controller does not come back to cgroup2.  Skips without bfq,
# its cgroup debug statistics (CONFIG_BFQ_CGROUP_DEBUG) or a v1 blkio
# hierarchy, and when A counted no dequeue before the move.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

WRITES=${WRITES:-256}
CG1=${TMPDIR:-/tmp}/bb-$TID-blkio

_require_root
_require_program fio
_require_program awk
_require_null_blk
trap '_cleanup_test; _cg_cleanup; _cg1_release
      _cg1_wait_io_back || _log "the io controller is still on cgroup v1"' EXIT
_prep_test "bfq moves a queue to its task's new cgroup at insertion"

dev=bb_$TID
_nullb_create "$dev" memory_backed=0 submit_queues=1 ||
	_skip "cannot create a null_blk device"
_require_sched "$dev" bfq || _skip "bfq is not available"
_set_sched "$dev" bfq || { _fail "cannot select bfq"; _show_result; }
echo 0 > "/sys/block/$dev/queue/iosched/slice_idle" ||
	{ _fail "cannot set bfq's slice_idle to 0"; _show_result; }
devt=$(cat "/sys/block/$dev/dev")
_require_cgroup1_blkio "$CG1"
a=$CG1/bb_${TID}_a b=$CG1/bb_${TID}_b
_cg_make "$a"
_cg_make "$b"
[ -e "$a/blkio.bfq.dequeue" ] ||
	_skip "no blkio.bfq.dequeue: the kernel has no CONFIG_BFQ_CGROUP_DEBUG"

# _dequeues CG -- fio's queue's dequeues counted in CG's group for the disk
_dequeues() {
	awk -v d="$devt" '$1 == d { print $2; f = 1 } END { if (!f) print 0 }' \
		"$1/blkio.bfq.dequeue"
}

# _writes_reach N -- wait until the disk has completed N writes, as long as
#   it makes progress (BB_STALL_SECS without a write is a stall); false then
_writes_reach() {
	local st w last=-1 still=0

	while :; do
		read -ra st < "/sys/block/$dev/stat"
		w=${st[4]}
		[ "$w" -ge "$1" ] && return 0
		if [ "$w" -gt "$last" ]; then
			last=$w still=0
		elif [ $((still += 1)) -ge $((5 * BB_STALL_SECS)) ]; then
			return 1
		fi
		sleep 0.2
	done
}

sh -c 'cg=$1; shift; echo $$ > "$cg/cgroup.procs" && exec "$@"' sh "$a" \
	fio --name=move --filename="/dev/$dev" --ioengine=psync --direct=1 \
	--rw=randwrite --bs=4k --size=64M --time_based --runtime=600 \
	> "$BB_TMP/fio.log" 2>&1 &
fio_pid=$!
_watchdog_start "$dev"
if _writes_reach "$WRITES"; then
	before=$(_dequeues "$a")
	# every task of fio, its job's process included
	for pid in $(cat "$a/cgroup.procs"); do
		echo "$pid" > "$b/cgroup.procs" 2>/dev/null
	done
	[ -z "$(cat "$a/cgroup.procs")" ] ||
		_fail "fio's tasks did not all move to ${b##*/}"
	read -ra st < "/sys/block/$dev/stat"
	at_move=${st[4]} a_at_move=$(_dequeues "$a")
	_writes_reach $((at_move + WRITES)) ||
		_fail "no write completed for $BB_STALL_SECS s after the move"
else
	_fail "fio did not write $WRITES blocks: no write for $BB_STALL_SECS s"
fi
# fio ends on SIGTERM with its report, "err= 0" if no I/O failed
kill "$fio_pid" 2>/dev/null
_wait_pid "$fio_pid"
_watchdog_stop
grep -q 'err= 0:' "$BB_TMP/fio.log" ||
	_fail_io "fio: $(grep -m1 'err=' "$BB_TMP/fio.log")"
a_end=$(_dequeues "$a") b_end=$(_dequeues "$b")
_log "dequeues of fio's queue: ${before:-?} in A after $WRITES writes;" \
     "after the move and $WRITES more, $((a_end - ${a_at_move:-0})) more in A," \
     "$b_end in B"
if [ -n "${a_at_move:-}" ]; then
	[ "$before" -gt 0 ] ||
		_skip_later "no dequeue counted in A before the move: the" \
			    "statistics cannot tell the groups apart"
	[ "$b_end" -gt 0 ] ||
		_fail "no dequeue of fio's queue counted in ${b##*/} after fio moved" \
		      "there: bfq kept its queue in the old group"
	[ $((a_end - a_at_move)) -le "$b_end" ] ||
		_fail "after fio moved to ${b##*/}, $((a_end - a_at_move))" \
		      "dequeues of its queue counted in ${a##*/} and $b_end in" \
		      "${b##*/}: bfq kept its queue in the old group"
fi

# the controller back to cgroup2 before the verdict: the disk goes
# first, with the blkgs that pin the cgroups
_nullb_destroy "$dev"
_cg_cleanup
_cg1_release ||
	_fail "a removed cgroup is still held with its disk gone: a leaked" \
	      "reference"
_cg1_wait_io_back ||
	_fail "the io controller did not come back to cgroup2 after the v1" \
	      "hierarchy was unmounted"

_show_result
