#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the benchmark guest as /extra/run.  Settings come from
# /extra/params (written by scripts/run.sh); the kernel command line names
# the kernel (bb.kernel=base|patched, set by scripts/bench/run-guests.sh)
# and may override bb.scheds=, bb.jobs= (comma-separated lists) and
# bb.runtime=.  With UBLK_MODES, kublk's null target instead (below).  For each scheduler and job
# count: a fresh null_blk set up as in the 2025 "request batch dispatching
# for sq elevator" cover letter (submit_queues scaled to the vCPUs), then its
# fio command.  One line per case:
#   BENCH kernel=K sched=S jobs=N iops=I merges=M

. /extra/params
for arg in $(cat /proc/cmdline); do
	case $arg in
	bb.kernel=*) KERNEL=${arg#*=} ;;
	bb.scheds=*) SCHEDS=${arg#*=}; SCHEDS=${SCHEDS//,/ } ;;
	bb.jobs=*) JOBS=${arg#*=}; JOBS=${JOBS//,/ } ;;
	bb.runtime=*) RUNTIME=${arg#*=} ;;
	esac
done
nullb=/sys/kernel/config/nullb/bbbench

# bench_fio, bench_lockstat
. "$(dirname "$0")/fio-case.sh"

# UBLK_MODES (scripts/run.sh --ublk): instead of null_blk and schedulers,
# kublk's null target (the kernel's ublk selftests' server: no data is
# copied to or from any backing store) with one hw queue per vCPU, in each
# mode: pc page copy, zc auto buffer registration zero copy (--auto_zc), uc
# user copy (-u); "-b" adds UBLK_F_BATCH_IO (kublk -b).  One line per case:
#   BENCH kernel=K sched=ublk-MODE jobs=N iops=I merges=M
kublk=/kselftest/ublk/kublk
if [ -n "${UBLK_MODES:-}" ]; then
	for mode in $UBLK_MODES; do
		case $mode in
		pc*) flags=() ;;
		zc*) flags=(--auto_zc) ;;
		uc*) flags=(-u) ;;
		esac
		case $mode in *-b) flags+=(-b) ;; esac
		for jobs in $JOBS; do
			# bounded: a case that hangs is NA, not the end of the run
			id=$(timeout -k 5 60 "$kublk" add -t null -q "$(nproc)" -d 128 \
				"${flags[@]}" 2>&1 | sed -n 's/^dev id \([0-9]*\):.*/\1/p')
			if [ -z "$id" ] || [ ! -b "/dev/ublkb$id" ]; then
				echo "BENCH kernel=$KERNEL sched=ublk-$mode jobs=$jobs iops=NA merges=NA"
				continue
			fi
			iops=$(bench_fio "/dev/ublkb$id" "$jobs")
			merges=$(awk '{ print $2 + $6 }' "/sys/block/ublkb$id/stat")
			echo "BENCH kernel=$KERNEL sched=ublk-$mode jobs=$jobs iops=${iops:-NA} merges=$merges"
			timeout -k 5 60 "$kublk" del -n "$id" > /dev/null 2>&1
		done
	done
	exit 0
fi

for sched in $SCHEDS; do
	for jobs in $JOBS; do
		mkdir "$nullb" || exit 1
		for kv in completion_nsec=0 blocksize=512 home_node=0 \
			  irqmode="$IRQMODE" submit_queues="$(nproc)" \
			  hw_queue_depth=1024 size=1024 memory_backed=0 \
			  queue_mode=2; do
			echo "${kv#*=}" > "$nullb/${kv%%=*}"
		done
		echo 1 > "$nullb/power"
		if ! echo "$sched" > /sys/block/bbbench/queue/scheduler; then
			echo "BENCH kernel=$KERNEL sched=$sched jobs=$jobs iops=NA merges=NA"
			echo 0 > "$nullb/power"; rmdir "$nullb"
			continue
		fi
		[ -w /proc/lock_stat ] && echo 0 > /proc/lock_stat
		iops=$(bench_fio /dev/bbbench "$jobs")
		merges=$(awk '{ print $2 + $6 }' /sys/block/bbbench/stat)
		echo "BENCH kernel=$KERNEL sched=$sched jobs=$jobs iops=${iops:-NA} merges=$merges"
		# CONFIG_LOCK_STAT: with the I/O count, to make them per I/O
		ios=$(awk '{ print $1 + $5 }' /sys/block/bbbench/stat)
		bench_lockstat "LOCKSTAT kernel=$KERNEL sched=$sched jobs=$jobs ios=$ios"
		echo 0 > "$nullb/power"
		rmdir "$nullb"
	done
done
