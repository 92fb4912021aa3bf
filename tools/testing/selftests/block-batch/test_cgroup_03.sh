#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bfq's cgroup-v1 statistics: blkio.bfq.io_serviced and
# blkio.bfq.io_service_bytes count each request bfq inserts, for the
# cgroup of its bio.  They are kept only while the io controller is bound
# to a v1 hierarchy, and bfq_insert_requests() updates them for every
# request of the list it is given, before it takes the scheduler lock.
# A cgroup-v1 hierarchy with blkio is mounted (the io controller leaves
# cgroup2 until it is unmounted); from a cgroup of it, fio writes 4k
# blocks 4k apart (no two can merge) to a null_blk under bfq through
# io_uring, 32 a submit, so that plug flushes hand bfq lists of many
# requests.  A kprobe counts the bfq_insert_requests() calls (an ops
# callback, never inlined).
# Fails when the cgroup's io_serviced writes differ from the writes fio
# issued, or its io_service_bytes writes from their bytes; when the
# removed cgroup is still held once the disk is gone (no cgroup of the
# hierarchy freed for BB_STALL_SECS: a leaked blkg or bio reference); and
# when the io controller does not come back to cgroup2 after the unmount
# (the tests after this one need it).  Skips without bfq, its cgroup
# support, a v1 blkio hierarchy or kprobes, and when no call got more
# than one request (as many calls as writes) or the kprobe missed calls:
# no list was seen counted.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

GROUP=bb_cgroup_03
BS=4096
CG1=${TMPDIR:-/tmp}/bb-$TID-blkio

_require_root
_require_program fio
_require_fio_engine io_uring
_require_null_blk
_require_tracefs
_require_kprobes
trap '_probe_trace_stop; _cleanup_test; _cg_cleanup; _cg1_release
      _cg1_wait_io_back || _log "the io controller is still on cgroup v1"' EXIT
_prep_test "bfq's cgroup-v1 io_serviced against the writes of a cgroup"

dev=bb_$TID
_nullb_create "$dev" memory_backed=0 submit_queues=1 ||
	_skip "cannot create a null_blk device"
_require_sched "$dev" bfq || _skip "bfq is not available"
_set_sched "$dev" bfq || _fail "cannot select bfq"
_require_cgroup1_blkio "$CG1"
cg=$CG1/bb_$TID
_cg_make "$cg"
[ -e "$cg/blkio.bfq.io_serviced" ] ||
	_skip "no blkio.bfq.io_serviced: the kernel has no CONFIG_BFQ_GROUP_IOSCHED"
_probe_trace_start 64 "$GROUP" "ins bfq_insert_requests"
_probe_trace_on

# rw=write:4k: each write skips the next 4k block
sh -c 'cg=$1; shift; echo $$ > "$cg/cgroup.procs" && exec "$@"' sh "$cg" \
	fio --name=v1stats --filename="/dev/$dev" --ioengine=io_uring \
	--direct=1 --rw=write:$BS --bs=$BS --size=16M --iodepth=32 \
	--iodepth_batch_submit=32 --iodepth_batch_complete_min=32 \
	> "$BB_TMP/fio.log" 2>&1 &
_wait_pid $!
_fio_ok $? "$BB_TMP/fio.log" || _fail_io "fio in ${cg##*/}"
_probe_trace_off
calls=$(_kprobe_hits "$GROUP" ins)
missed=$(_kprobe_misses "$GROUP" ins)
_probe_trace_stop

writes=$(sed -n 's/.*issued rwts: total=[0-9]*,\([0-9]*\),.*/\1/p' "$BB_TMP/fio.log")
devt=$(cat "/sys/block/$dev/dev")
# "MAJ:MIN Write N" among the device's lines
served=$(awk -v d="$devt" '$1 == d && $2 == "Write" { print $3 }' \
	"$cg/blkio.bfq.io_serviced")
bytes=$(awk -v d="$devt" '$1 == d && $2 == "Write" { print $3 }' \
	"$cg/blkio.bfq.io_service_bytes")
_log "fio issued ${writes:-no} writes; bfq: $calls bfq_insert_requests()" \
     "calls, io_serviced ${served:-none}, io_service_bytes ${bytes:-none}"
if [ -z "$writes" ] || [ "$writes" -eq 0 ]; then
	_fail "fio reported no writes issued"
else
	[ "${served:-0}" -eq "$writes" ] ||
		_fail "bfq counted ${served:-0} writes in io_serviced for" \
		      "$writes requests written"
	[ "${bytes:-0}" -eq $((writes * BS)) ] ||
		_fail "bfq counted ${bytes:-0} bytes in io_service_bytes for" \
		      "$((writes * BS)) written"
	[ "$missed" -eq 0 ] ||
		_skip_later "the kprobe missed $missed bfq_insert_requests() calls"
	[ "$calls" -lt "$writes" ] ||
		_skip_later "every bfq_insert_requests() call got one request" \
			    "($calls calls, $writes writes): no list was counted"
fi

# the controller back to cgroup2 before the verdict: the disk goes
# first, with the blkgs that pin the cgroup
_nullb_destroy "$dev"
_cg_cleanup
_cg1_release ||
	_fail "the removed cgroup is still held with its disk gone: a leaked" \
	      "reference"
_cg1_wait_io_back ||
	_fail "the io controller did not come back to cgroup2 after the v1" \
	      "hierarchy was unmounted"

_show_result
