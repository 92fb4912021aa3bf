# SPDX-License-Identifier: GPL-2.0
#
# The benchmark's fio command and the lock figures taken around it, sourced
# by guest-bench.sh (in the guest) and dev-bench.sh (run.sh --dev, on a real
# disk): one source for both.

# bench_fio DEV JOBS [FIO-OPTION]... -- the fio command of Yu Kuai's
#   "blk-mq-sched: support request batch dispatching for sq elevator"
#   (2025): 4k, io_uring, iodepth 32, batches of 8, with $RW for $RUNTIME
#   seconds on DEV; prints the IOPS, read plus write (terse v3: fields 8
#   and 49), nothing if fio failed or reported an error (field 5); its
#   output in $BB_FIO_OUT
#   (default /tmp/fio.out).  Bounded: a case that hangs is NA, not the end
#   of the run.
bench_fio() {
	local dev=$1 jobs=$2 out=${BB_FIO_OUT:-/tmp/fio.out}

	shift 2
	timeout -k 5 $((RUNTIME + 60)) \
	fio --filename="$dev" --name=test --rw="$RW" --bs=4k \
		--iodepth=32 --numjobs="$jobs" --iodepth_batch_submit=8 \
		--iodepth_batch_complete=8 --direct=1 --ioengine=io_uring \
		--group_reporting --time_based --runtime="$RUNTIME" \
		--output-format=terse --terse-version=3 "$@" > "$out" 2>&1 || return 0
	awk -F';' 'NF > 49 && $5 == 0 { print $8 + $49 }' "$out"
}

# bench_devstat NAME -- the I/Os and the merges completed so far on
#   /sys/block/NAME, reads and writes together: "IOS MERGES"; the
#   difference of two readings counts a run's
bench_devstat() {
	local st

	read -r -a st < "/sys/block/$1/stat" || return 1
	echo "$(( st[0] + st[4] )) $(( st[1] + st[5] ))"
}

# The scheduler lock's lockdep class names: dd->lock and bfqd->lock in the
# base kernel, the scheduler lock (its class named after the elevator) with
# the series.
SCHED_LOCK_CLASSES='&dd->lock &bfqd->lock mq-deadline bfq kyber'

# bench_lockstat PREFIX -- the lock_stat rows of the locks the series changes
#   (CONFIG_LOCK_STAT kernels), as LOCKSTAT lines: contentions,
#   acquisitions, the longest hold, and the total hold and wait times in
#   us (columns 3, 9, 11, 12 and 6 of /proc/lock_stat: contentions,
#   acquisitions, holdtime-max, holdtime-total, waittime-total).  The
#   scheduler's lock is one row, "sched-lock", under either kernel's class
#   names.
LOCK_STAT_FILE=/proc/lock_stat
bench_lockstat() {
	local f=${TMPDIR:-/tmp}/lock_stat.$$

	[ -r "$LOCK_STAT_FILE" ] || return 0
	# one read of the file, then parse the copy; rows of the same lock
	# under several class names (#N versions, /N subclasses) are added up
	cat "$LOCK_STAT_FILE" > "$f" || return 0
	awk -v pre="$1" -v classes="$SCHED_LOCK_CLASSES" '
		BEGIN { n = split(classes, a, " "); for (i = 1; i <= n; i++) sched[a[i]] = 1; n = 0 }
		{
			c = $1
			if (!sub(/(#[0-9]+)?(\/[0-9]+)?:$/, "", c)) next
			if (c in sched) c = "sched-lock"
			else if (c != "&q->queue_lock") next
			if (!(c in acq)) order[++n] = c
			con[c] += $3; acq[c] += $9; htot[c] += $12; wtot[c] += $6
			if (!(c in hold) || $11 + 0 > hold[c]) hold[c] = $11 + 0
		}
		END {
			for (i = 1; i <= n; i++)
				printf "%s class=%s con=%.0f acq=%.0f hold=%.2f htot=%.2f wtot=%.2f\n",
					pre, order[i], con[order[i]], acq[order[i]], hold[order[i]],
					htot[order[i]], wtot[order[i]]
		}' "$f"
	rm -f "$f"
}

# The scheduler lock's hold time by call site, from lockdep's lock_acquired
# and lock_release trace events (CONFIG_LOCK_STAT, CONFIG_HIST_TRIGGERS):
# a histogram trigger on lock_acquired (the lock taken, after any wait)
# keeps the time per lock and task, one on lock_release sends the
# difference to a synthetic event, and that event's histogram sums it by
# the stack at the release.  The stack names the function that let the
# lock go; bench_holdsites_stop sorts it into a call site.  The counts and
# times are those of this second, much slower run: the tracing of every
# lock inflates each hold (by a fixed cost per hold, and more for holds
# that take other locks), which is why the report uses only the sites'
# shares of the time.  Trylock holds and PREEMPT_RT's sleeping spinlocks
# fire no lock_acquired: they are not traced.
HOLD_TRACEFS=/sys/kernel/tracing
HOLD_EVENT=sched_lock_hold

# bench_holdsites_start -- set up the triggers; returns 1 (and leaves
#   nothing set up) where the kernel has no lock events or no histograms
bench_holdsites_start() {
	local t=$HOLD_TRACEFS n

	HOLD_FILTER=
	[ -w "$t/events/lock/lock_acquired/trigger" ] && [ -w "$t/synthetic_events" ] || return 1
	for n in $SCHED_LOCK_CLASSES; do
		HOLD_FILTER+="${HOLD_FILTER:+ || }name == \"$n\""
	done
	HOLD_TRIGGERS=(
		"$t/events/lock/lock_acquired/trigger:hist:keys=lockdep_addr,common_pid:ts0=common_timestamp if $HOLD_FILTER"
		"$t/events/lock/lock_release/trigger:hist:keys=lockdep_addr,common_pid:ns=common_timestamp-\$ts0:onmatch(lock.lock_acquired).trace($HOLD_EVENT,\$ns) if $HOLD_FILTER"
		"$t/events/synthetic/$HOLD_EVENT/trigger:hist:keys=common_stacktrace:vals=hitcount,ns:size=8192"
	)
	if ! echo "$HOLD_EVENT u64 ns" >> "$t/synthetic_events" 2>/dev/null; then
		echo "bench: no synthetic event $HOLD_EVENT: no hold sites" >&2
		return 1
	fi
	for n in "${HOLD_TRIGGERS[@]}"; do
		echo "${n#*:}" >> "${n%%:*}" 2>/dev/null && continue
		echo "bench: ${n%%:*} refused a trigger: no hold sites;" \
		     "$(tail -n 2 "$t/error_log" 2>/dev/null | tr '\n' ' ')" >&2
		bench_holdsites_off
		return 1
	done
}

# bench_holdsites_off -- remove the triggers (last first) and the event
bench_holdsites_off() {
	local i n

	for ((i = ${#HOLD_TRIGGERS[@]} - 1; i >= 0; i--)); do
		n=${HOLD_TRIGGERS[i]}
		echo "!${n#*:}" >> "${n%%:*}" 2>/dev/null
	done
	echo "!$HOLD_EVENT" >> "$HOLD_TRACEFS/synthetic_events" 2>/dev/null
	HOLD_TRIGGERS=()
}

# bench_holdsites_stop PREFIX -- HOLDSITE lines, one per call site that held
#   the lock: PREFIX site=S n=ACQUISITIONS ns=TOTAL-HOLD, and the entries
#   the histogram dropped (site=dropped n=N ns=0); then bench_holdsites_off.
#   The site is that of the first function in the stack, from the top,
#   whose name tells one: a static function inlined into its caller leaves
#   the caller, which is the same site.  The frames below an interrupt
#   entry belong to the interrupted task: a hold released in interrupt
#   context by a function named after no site (bfq's idle timer) is
#   "other".
bench_holdsites_stop() {
	awk -v pre="$1" '
		function site(f) {
			if (f ~ /bio_merge/) return "merge"
			if (f ~ /insert_request/) return "insert"
			if (f ~ /dispatch|dequeue/) return "dispatch"
			if (f ~ /finish|requeue/) return "finish"
			if (f ~ /limit_depth|over_limit/) return "depth"
			return ""
		}
		/^\{ common_stacktrace:/ { s = ""; stop = 0; next }
		/^[[:space:]]+[A-Za-z_.0-9]+\+0x/ {
			f = $1; sub(/\+.*/, "", f)
			# a release in interrupt context: the frames below
			# the interrupt entry are those of the interrupted task
			if (f ~ /^asm_|_interrupt$|^handle_softirqs$|^__do_softirq$|^__hrtimer_run_queues$|^irq_exit/)
				stop = 1
			if (s == "" && !stop) s = site(f)
			next
		}
		/^\} hitcount:/ {
			if (s == "") s = "other"
			if (!(s in n)) order[++k] = s
			n[s] += $3; ns[s] += $5
			next
		}
		/^[[:space:]]*Dropped:/ { dropped = $2 }
		END {
			for (i = 1; i <= k; i++)
				printf "%s site=%s n=%.0f ns=%.0f\n", pre, order[i], n[order[i]], ns[order[i]]
			if (dropped + 0) print pre " site=dropped n=" dropped " ns=0"
		}' "$HOLD_TRACEFS/events/synthetic/$HOLD_EVENT/hist"
	bench_holdsites_off
}
