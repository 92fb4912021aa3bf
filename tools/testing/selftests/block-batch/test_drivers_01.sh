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
# The disks' data is destroyed.  Used only: SCSI disks whose model starts
# with "bbscratch" (QEMU's -device scsi-hd,product=bbscratch, which
# a test VM attaches behind megasas-gen2 and virtio-scsi-pci) and
# the first namespace of QEMU's NVMe controllers with serial "bbnvme"
# (a test VM's scratch drive), or the disks named in BB_SCRATCH_DEVS
# ("sdb nvme1n1": real hardware).  A disk that is mounted (by device
# number, so /dev/root too), swap or held is refused.  No scratch disk is
# a SKIP.

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

# _scratch_disks -- the disks this test may destroy
_scratch_disks() {
	local b

	if [ -n "${BB_SCRATCH_DEVS:-}" ]; then
		for b in $BB_SCRATCH_DEVS; do echo "${b#/dev/}"; done
		return
	fi
	for b in /sys/block/sd*; do
		[ -e "$b/device/model" ] || continue
		if grep -q '^bbscratch' "$b/device/model"; then
			echo "${b##*/}"
		else
			# why not: into the log, for a user who expected it
			_log "${b##*/} ($(_disk_driver "${b##*/}"):" \
			     "$(cat "$b/device/vendor") $(cat "$b/device/model")):" \
			     "no scratch disk (model not bbscratch*)" >&2
		fi
	done
	# one namespace per controller: a second one shares the first's
	# queues and driver paths
	_scratch_nvme_by_ctrl | awk '!seen[$1]++ { print $2 }'
}

mapfile -t disks < <(_scratch_disks)
[ ${#disks[@]} -gt 0 ] ||
	_skip "no scratch disk (a test VM attaches them as bbscratch/bbnvme;" \
	      "elsewhere BB_SCRATCH_DEVS names them)"
for d in "${disks[@]}"; do
	[ -b "/dev/$d" ] && [ -d "/sys/block/$d" ] || _skip "$d is not a disk"
	why=$(_disk_in_use "$d") && _skip "refusing $d: $why"
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
