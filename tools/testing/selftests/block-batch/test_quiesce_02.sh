#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe controller resets under fio write+verify.  A reset quiesces every
# namespace queue (nvme_quiesce_io_queues()), cancels and requeues what is
# in flight, and unquiesces; a request stranded by a lost rerun hangs fio, a
# lost one fails verify.  Needs an NVMe device whose contents may be
# destroyed: BB_NVME_DEV (default: the first controller whose model is
# "QEMU NVMe Ctrl", as QEMU's -device nvme provides).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

RESETS=${RESETS:-50}

_require_root
_require_program fio
_require_fio_engine io_uring

ctrl=
for c in /sys/class/nvme/nvme*; do
	[ -e "$c/model" ] || continue
	if [ -n "${BB_NVME_DEV:-}" ] || grep -q "QEMU NVMe Ctrl" "$c/model"; then
		ctrl=$c
		break
	fi
done
[ -n "$ctrl" ] || _skip "no scratch NVMe controller (QEMU -device nvme or BB_NVME_DEV)"
ns=${BB_NVME_DEV:-$(basename "$(ls -d "$ctrl"/nvme*n1 2>/dev/null | head -n1)")}
[ -b "/dev/$ns" ] || _skip "no namespace block device on $(basename "$ctrl")"

_prep_test "$RESETS resets of $(basename "$ctrl") under fio verify on $ns"

for sched in none mq-deadline; do
	_sched_available "$ns" "$sched" || continue
	_set_sched "$ns" "$sched" || { _fail "cannot select $sched on $ns"; continue; }
	(
		i=0
		while [ $i -lt "$RESETS" ]; do
			echo 1 > "$ctrl/reset_controller" 2>/dev/null && i=$((i + 1))
			# wait for the controller to come back before the next one
			for _ in $(seq 100); do
				grep -q live "$ctrl/state" && break
				sleep 0.1
			done
		done
		echo $i > "$BB_TMP/resets"
	) &
	loop_pid=$!
	_verify_while $loop_pid "$ns" ||
		_fail "$sched: fio verify failed during controller resets"
	wait $loop_pid
	resets=$(cat "$BB_TMP/resets" 2>/dev/null || echo 0)
	_log "$sched: $resets controller resets during $BB_RUNS fio verify runs"
	[ "$resets" -ge "$RESETS" ] || _fail "$sched: only $resets resets"
	grep -q live "$ctrl/state" || _fail "$sched: controller not live after the resets"
done

_show_result
