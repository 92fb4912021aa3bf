#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Switch the I/O scheduler in a loop while fio write+verify runs on a
# multi-queue null_blk.  Every switch quiesces and freezes the queue with
# requests in flight.  No verify error, no hang, no splat.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

_require_root
_require_program fio
_require_fio_engine io_uring
_require_null_blk

_prep_test "scheduler switching under fio verify"

dev=bb_$TID
_nullb_create "$dev" || _skip "cannot create a null_blk device"
scheds=()
for s in $BB_SCHEDULERS; do
	_sched_available "$dev" "$s" && scheds+=("$s")
done
[ ${#scheds[@]} -ge 2 ] || _skip "fewer than two schedulers available"

_fio_verify "$dev" io_uring --loops=4 &
fio_pid=$!

switches=0
while kill -0 $fio_pid 2>/dev/null; do
	for s in "${scheds[@]}"; do
		if ! _set_sched "$dev" "$s"; then
			_fail "switch to $s failed"
			break 2
		fi
		switches=$((switches + 1))
	done
done
wait $fio_pid || _fail "fio write+verify failed during scheduler switches"
_log "$switches switches among ${scheds[*]} while fio ran"
# The test means nothing if fio finished before the switching started.
[ $switches -ge ${#scheds[@]} ] || _fail "only $switches switches happened under I/O"

_show_result
