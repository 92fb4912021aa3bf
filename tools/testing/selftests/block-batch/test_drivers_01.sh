#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Data integrity and scheduler switching on real drivers, through
# mq-deadline and bfq: batch dispatch meets drivers with real budgets and
# queue reruns (SCSI: megaraid_sas, virtio_scsi; multi-queue NVMe).  On each
# scratch disk: fio write+verify through mq-deadline, then bfq; then the
# scheduler switched round none, mq-deadline and bfq while fio write+verify
# runs, bounded by SWITCHES and BB_STRESS_SECS / 2.
#
# Devices: the disks named in BB_SCRATCH_DEVS ("sdb sdc nvme1n1": one
# per driver to test, for example QEMU's megasas-gen2, virtio-scsi-pci
# and nvme, or real hardware); their data is destroyed.  A disk that is
# mounted (by device number, so /dev/root too), swap or held is refused.
# Without BB_SCRATCH_DEVS the test skips.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

SWITCHES=${SWITCHES:-1000}
MIN_SWITCHES=${MIN_SWITCHES:-5}

_require_root
_require_program fio
_require_fio_engine io_uring

# _disk_driver DISK -- the driver behind DISK: the SCSI host's proc_name,
# or nvme
_disk_driver() {
	local h

	case $1 in nvme*) echo nvme; return ;; esac
	h=$(readlink -f "/sys/block/$1/device")
	h=${h%/target*}
	cat "/sys/class/scsi_host/${h##*/}/proc_name" 2>/dev/null || echo unknown
}

[ -n "${BB_SCRATCH_DEVS:-}" ] ||
	_skip "BB_SCRATCH_DEVS names no disk to test (their data is destroyed)"
read -ra disks <<< "$BB_SCRATCH_DEVS"
disks=("${disks[@]#/dev/}")
for d in "${disks[@]}"; do
	_require_unused_disk "$d"
done

_prep_test "integrity and scheduler switching on ${disks[*]}"

tested=()
for d in "${disks[@]}"; do
	drv=$(_disk_driver "$d")
	orig=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "/sys/block/$d/queue/scheduler")
	_log "$d: $drv, $(ls -d "/sys/block/$d/mq/"* | wc -l) hw queues," \
	     "nr_requests $(cat "/sys/block/$d/queue/nr_requests")," \
	     "scheduler $orig"
	scheds=(none)
	for s in mq-deadline bfq; do
		_require_sched "$d" "$s" && scheds+=("$s")
	done
	if [ ${#scheds[@]} -ne 3 ]; then
		_log "$d ($drv): not tested: needs mq-deadline and bfq (has ${scheds[*]})"
		continue
	fi
	_watchdog_start "$d"
	ok=1
	for s in mq-deadline bfq; do
		if ! _set_sched "$d" "$s"; then
			_fail "$d ($drv): cannot select $s"
			ok=0
			break
		fi
		if ! _fio_verify "$d" io_uring --size=8M --offset_increment=8M; then
			_fail_io "$d ($drv): $s: fio write+verify failed"
			ok=0
			break
		fi
		_log "$d ($drv): $s: write+verify ok"
	done
	if [ $ok -eq 1 ]; then
		# half the stress budget per disk: three disks in one test
		BB_STRESS_SECS=$((BB_STRESS_SECS / 2)) \
			_stress_spawn "switch-$d" _sched_switch_loop "switch-$d" \
				"$SWITCHES" "$d" "${scheds[@]}"
		if _verify_while "switch-$d" "$BB_STRESS_PID" "$d"; then
			_log "$d ($drv): $BB_RUNS fio verify runs while switching"
			_stress_verdict "$d ($drv) switches" "$MIN_SWITCHES" inflight &&
				tested+=("$d:$drv")
		fi
	fi
	_watchdog_stop
	_stalled && break
	_set_sched "$d" "$orig" || _fail "$d: cannot restore $orig"
done
_log "tested: ${tested[*]:-none}"
_skip_if_untested ${#tested[@]} "no scratch disk had mq-deadline and bfq"

_show_result
