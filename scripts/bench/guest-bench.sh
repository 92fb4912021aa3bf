#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the benchmark guest as /extra/run.  Settings come from
# /extra/params (written by scripts/run.sh); the kernel command line names
# the kernel (bb.kernel=base|patched, set by scripts/bench/run-guests.sh)
# and may override bb.scheds=, bb.jobs= (comma-separated lists),
# bb.runtime= and bb.poll=.  With HDD=1 an HDD stand-in instead of the
# batch-dispatch null_blk setup (below).  With HOLDS_NR, the longest
# irq-off and preempt-off sections instead, with UBLK_MODES kublk's null
# target, and with DISK an emulated SCSI disk (all below).
# Otherwise, for each scheduler and job count: a fresh null_blk set up as in
# the cover letter of Yu Kuai's "blk-mq-sched: support request batch
# dispatching for sq elevator" (2025), submit_queues scaled to the vCPUs,
# then its fio command; with POLL=1
# (run.sh --poll, or bb.poll=1 on the command line) plus one poll queue,
# and fio reaps its completions by polling (--hipri).  One line per case:
#   BENCH kernel=K sched=S jobs=N iops=I merges=M

. /extra/params
for arg in $(cat /proc/cmdline); do
	case $arg in
	bb.kernel=*) KERNEL=${arg#*=} ;;
	bb.scheds=*) SCHEDS=${arg#*=}; SCHEDS=${SCHEDS//,/ } ;;
	bb.jobs=*) JOBS=${arg#*=}; JOBS=${JOBS//,/ } ;;
	bb.runtime=*) RUNTIME=${arg#*=} ;;
	bb.poll=*) POLL=${arg#*=} ;;
	esac
done
nullb=/sys/kernel/config/nullb/bbbench
# extra fio options of every case (HDD=1 below)
BENCH_FIO_ARGS=()

# bench_fio, bench_lockstat
. "$(dirname "$0")/fio-case.sh"

# HOLDS_NR (scripts/run.sh --holds): instead of the IOPS cases, the longest
# section run with interrupts disabled (irqsoff tracer, with bfq: bfq takes
# the scheduler lock with interrupts disabled) and with preemption disabled
# (preemptoff tracer, with mq-deadline) on the guest's emulated NVMe, at each
# nr_requests in HOLDS_NR.  fio keeps 4 x 512 I/Os ($RW) queued while the
# controller is reset up to HOLDS_RESETS times, 2 s apart, while fio runs:
# each reset quiesces the queue, requests pile up in the scheduler, and
# unquiescing the queue dispatches them in as few runs as the dispatch loop
# allows.  The tracer's maximum covers the whole case, so the longest
# section may lie elsewhere (the reset itself, the timer tick): its start
# and end functions are printed with it.  One line per case:
#   HOLD kernel=K sched=S nr=N tracer=T us=U resets=R iops=I where=START,END
holds_case() {	# holds_case DEV SCHED NR TRACER
	local dev=$1 s=$2 nr=$3 tr=$4 t=/sys/kernel/tracing i=0 n=0 fpid us where iops

	echo "$s" > "/sys/block/$dev/queue/scheduler" &&
		echo "$nr" > "/sys/block/$dev/queue/nr_requests" &&
		grep -qw "$tr" "$t/available_tracers" || {
		echo "HOLD kernel=$KERNEL sched=$s nr=$nr tracer=$tr us=NA resets=0 iops=NA where=setup-failed"
		return
	}
	echo nop > "$t/current_tracer"
	echo 0 > "$t/tracing_max_latency"
	echo "$tr" > "$t/current_tracer"
	echo 1 > "$t/tracing_on"
	BB_FIO_OUT=/tmp/holds.out bench_fio "/dev/$dev" 4 --iodepth=512 \
		--iodepth_batch_submit=32 --iodepth_batch_complete=32 > /tmp/holds.iops &
	fpid=$!
	sleep 1
	while [ $i -lt "$HOLDS_RESETS" ] && kill -0 $fpid 2>/dev/null; do
		echo 1 > "/sys/class/nvme/${dev%n*}/reset_controller" && n=$((n + 1))
		i=$((i + 1))
		sleep 2
	done
	wait $fpid
	us=$(cat "$t/tracing_max_latency")
	iops=$(cat /tmp/holds.iops)
	where=$(awk '/=> (started|ended) at:/ { w = w (w == "" ? "" : ",") $NF }
		END { print w }' "$t/trace")
	echo nop > "$t/current_tracer"
	echo "HOLD kernel=$KERNEL sched=$s nr=$nr tracer=$tr us=$us resets=$n iops=${iops:-NA} where=${where:-unknown}"
}
if [ -n "${HOLDS_NR:-}" ]; then
	dev=$(ls /sys/block 2>/dev/null | grep -m1 -E '^nvme[0-9]+n[0-9]+$')
	if [ -z "$dev" ]; then
		echo "HOLD kernel=$KERNEL sched=none nr=0 tracer=none us=NA resets=0 iops=NA where=no-nvme"
		exit 0
	fi
	for nr in $HOLDS_NR; do
		holds_case "$dev" bfq "$nr" irqsoff
		holds_case "$dev" mq-deadline "$nr" preemptoff
	done
	exit 0
fi

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

# irqblk_start, irqblk_stop -- the time the interrupt threads ("irq/*": the
#   drivers' handlers under PREEMPT_RT, which forces them into threads and
#   makes spinlock_t a sleeping lock) spend blocked: from a switch out in
#   state D (which includes TASK_RTLOCK_WAIT, a wait for a spinlock_t) to
#   the thread's next wakeup (sched_switch and sched_wakeup events; to its
#   next switch in where the wakeup was not seen).  irqblk_stop prints
#   "us=U n=N sw=W lost=L": blocked time in us, blocked periods,
#   interrupt-thread switch-outs seen in any state (0: the trace saw
#   nothing, and U says nothing), events the trace buffer lost (nonzero: U
#   is unreliable, usually too low).  Nothing is printed where no interrupt
#   thread exists (no forced threading), the kernel has no sched events, or
#   in the lock_stat guests (their lines are not kept).
tfs=/sys/kernel/tracing
irqblk_events="sched_switch sched_wakeup"
irqblk_start() {
	local ev

	[ ! -e /proc/lock_stat ] && grep -qs '^irq/' /proc/[0-9]*/comm || return 1
	for ev in $irqblk_events; do
		[ -d "$tfs/events/sched/$ev" ] || return 1
	done
	echo 0 > "$tfs/tracing_on"
	echo nop > "$tfs/current_tracer"
	echo 8192 > "$tfs/buffer_size_kb"
	echo 'prev_comm ~ "irq/*" || next_comm ~ "irq/*"' > "$tfs/events/sched/sched_switch/filter" &&
		echo 'comm ~ "irq/*"' > "$tfs/events/sched/sched_wakeup/filter" || return 1
	for ev in $irqblk_events; do
		echo 1 > "$tfs/events/sched/$ev/enable" || return 1
	done
	echo > "$tfs/trace"
	echo 1 > "$tfs/tracing_on"
}
irqblk_stop() {
	local lost ev

	echo 0 > "$tfs/tracing_on"
	for ev in $irqblk_events; do
		echo 0 > "$tfs/events/sched/$ev/enable"
		echo 0 > "$tfs/events/sched/$ev/filter"
	done
	lost=$(cat "$tfs"/per_cpu/cpu*/stats 2>/dev/null |
		awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }')
	awk -v lost="$lost" '
		function ended(pid) { if (pid in out) { us += (t - out[pid]) * 1e6; n++; delete out[pid] } }
		/ sched_(switch|wakeup): / {
			for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; break }
			pc = pp = ps = np = wp = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^prev_comm=/) pc = substr($i, 11)
				else if ($i ~ /^prev_pid=/) pp = substr($i, 10)
				else if ($i ~ /^prev_state=/) ps = substr($i, 12)
				else if ($i ~ /^next_pid=/) np = substr($i, 10)
				else if ($i ~ /^pid=/) wp = substr($i, 5)
			}
			if (/ sched_wakeup: /) { ended(wp); next }
			ended(np)
			if (pc !~ /^irq\//) next
			sw++
			if (ps ~ /^D/) out[pp] = t
		}
		END { printf "us=%.0f n=%d sw=%d lost=%d\n", us, n, sw, lost }' "$tfs/trace"
	echo > "$tfs/trace"
}

# bench_case DEV SCHED JOBS [irqblk] -- one case on /dev/DEV: select SCHED
#   (NA if it cannot be), run the fio command, and print the BENCH line,
#   with irqblk the IRQBLK line, and on CONFIG_LOCK_STAT kernels the
#   LOCKSTAT lines and, from a second fio run, the HOLDSITE lines; merges
#   and I/Os are counted over each fio run only (deltas of
#   /sys/block/DEV/stat), the I/Os to make lock_stat per I/O
bench_case() {
	local dev=$1 sched=$2 jobs=$3 ib= blk= iops i0 m0 i1 m1 merges ios hipri= ls

	[ "${POLL:-0}" = 0 ] || hipri=1
	if ! echo "$sched" > "/sys/block/$dev/queue/scheduler"; then
		echo "BENCH kernel=$KERNEL sched=$sched jobs=$jobs iops=NA merges=NA"
		return 1
	fi
	if [ -w /proc/lock_stat ]; then
		# One read through the scheduler first: lockdep registers a
		# lock's class at its first acquisition, and a class registered
		# after the reset below may take the slot of a class freed
		# before it (the previous case's device, torn down) together
		# with that class's counts, which the reset does not clear.
		# Seen: the scheduler lock's row split into -W and -R, the -R
		# part with about as many read acquisitions as the previous
		# case had I/Os.
		fio --name=bb-lockstat-warmup --filename="/dev/$dev" \
			--ioengine=psync --direct=1 --rw=read --bs=4k \
			--size=4k > /dev/null 2>&1
		echo 0 > /proc/lock_stat
	fi
	read -r i0 m0 < <(bench_devstat "$dev")
	[ "${4:-}" != irqblk ] || ! irqblk_start || ib=1
	iops=$(bench_fio "/dev/$dev" "$jobs" ${hipri:+--hipri} \
		"${BENCH_FIO_ARGS[@]}")
	[ -z "$ib" ] || blk=$(irqblk_stop)
	read -r i1 m1 < <(bench_devstat "$dev")
	merges=$((m1 - m0)) ios=$((i1 - i0))
	echo "BENCH kernel=$KERNEL sched=$sched jobs=$jobs iops=${iops:-NA} merges=$merges"
	[ -z "$ib" ] || echo "IRQBLK kernel=$KERNEL sched=$sched jobs=$jobs ios=$ios $blk"
	ls=$(bench_lockstat "LOCKSTAT kernel=$KERNEL sched=$sched jobs=$jobs ios=$ios iops=${iops:-NA}")
	[ -z "$ls" ] || echo "$ls"
	# lock_stat kernels, a scheduler whose lock was taken: the same fio
	# run again with the hold time traced by call site (HOLDSITE lines),
	# apart from the run above, whose lock_stat figures the tracing would
	# inflate
	[[ $ls == *class=sched-lock* ]] && bench_holdsites_start || return 0
	read -r i0 m0 < <(bench_devstat "$dev")
	bench_fio "/dev/$dev" "$jobs" ${hipri:+--hipri} "${BENCH_FIO_ARGS[@]}" > /dev/null
	read -r i1 m1 < <(bench_devstat "$dev")
	ios=$((i1 - i0))
	bench_holdsites_stop "HOLDSITE kernel=$KERNEL sched=$sched jobs=$jobs ios=$ios"
}

# DISK (run.sh --disk): instead of null_blk, the guest's emulated SCSI disk
# (product "bbscratch": virtio-scsi or megaraid_sas, scripts/boot.sh -d),
# its queue_depth lowered to SCSI_QD so that submitters run out of device
# budget and completions rerun the hw queues (scsi_run_queue_async(),
# blk_mq_sched_restart()), as on the megaraid_sas of Ionut Nechita's
# "block/blk-mq: use atomic_t for quiesce_depth to avoid lock contention on
# RT" (2026), where interrupt threads then meet in blk_mq_run_hw_queue().
# Per case, with the BENCH and
# LOCKSTAT lines, the interrupt threads' blocked time:
#   IRQBLK kernel=K sched=S jobs=N ios=I us=U n=N sw=W lost=L
if [ "${DISK:-null_blk}" != null_blk ]; then
	dev= i=0
	# SCSI scans asynchronously: up to 30 s for the disk to show up
	while [ -z "$dev" ] && [ $i -lt 30 ]; do
		for m in /sys/block/sd*/device/model; do
			grep -qs '^bbscratch' "$m" || continue
			dev=${m#/sys/block/}; dev=${dev%%/*}
			break
		done
		[ -n "$dev" ] || sleep 1
		i=$((i + 1))
	done
	qd=
	if [ -n "$dev" ]; then
		echo "${SCSI_QD:-16}" > "/sys/block/$dev/device/queue_depth"
		qd=$(cat "/sys/block/$dev/device/queue_depth")
	fi
	if [ -z "$dev" ] || [ "$qd" != "${SCSI_QD:-16}" ]; then
		# every case NA, so that the report names each one
		why="no disk with model bbscratch"
		[ -z "$dev" ] || why="$dev: queue_depth ${SCSI_QD:-16} refused (${qd:-none})"
		echo "disk: $DISK: $why"
		for sched in $SCHEDS; do
			for jobs in $JOBS; do
				echo "BENCH kernel=$KERNEL sched=$sched jobs=$jobs iops=NA merges=NA"
			done
		done
		exit 1
	fi
	echo "disk: $DISK $dev queue_depth $qd hw queues $(ls -d /sys/block/"$dev"/mq/* | wc -l)"
	for sched in $SCHEDS; do
		for jobs in $JOBS; do
			bench_case "$dev" "$sched" "$jobs" irqblk
		done
	done
	exit 0
fi

# HDD=1 (run.sh --hdd): an HDD stand-in instead, as test_merge_01's hdd
# case: rotational, one hw queue of 32 tags, each request completed by a
# timer after 100 ms, and sequential writers, one bio per submission, each
# in a region of its own, so that bios wait in the scheduler and merge there.
nullb_conf=(completion_nsec=0 blocksize=512 home_node=0 irqmode="$IRQMODE"
	    submit_queues="$(nproc)" hw_queue_depth=1024 size=1024
	    memory_backed=0 queue_mode=2 poll_queues="${POLL:-0}")
if [ "${HDD:-0}" = 1 ]; then
	nullb_conf=(completion_nsec=100000000 blocksize=512 home_node=0
		    irqmode=2 submit_queues=1 hw_queue_depth=32 size=1024
		    memory_backed=0 queue_mode=2 rotational=1)
fi
for sched in $SCHEDS; do
	for jobs in $JOBS; do
		# the 1024 MiB device split into one region per writer
		[ "${HDD:-0}" = 0 ] ||
			BENCH_FIO_ARGS=(--iodepth_batch_submit=1
					--iodepth_batch_complete=1
					--size=$((1024 / jobs))M
					--offset_increment=$((1024 / jobs))M)
		mkdir "$nullb" || exit 1
		for kv in "${nullb_conf[@]}"; do
			echo "${kv#*=}" > "$nullb/${kv%%=*}"
		done
		echo 1 > "$nullb/power"
		bench_case bbbench "$sched" "$jobs"
		echo 0 > "$nullb/power"
		rmdir "$nullb"
	done
done
