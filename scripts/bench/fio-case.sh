# SPDX-License-Identifier: GPL-2.0
#
# The benchmark's fio command, sourced by guest-bench.sh (in the guest) and
# dev-bench.sh (run.sh --dev, on a real disk): one source for both.

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

# bench_lockstat PREFIX -- the lock_stat rows of the locks the series changes
#   (CONFIG_LOCK_STAT kernels), as LOCKSTAT lines: contentions,
#   acquisitions and the longest hold in us (columns 3, 9 and 11 of
#   /proc/lock_stat: contentions, acquisitions, holdtime-max).  The
#   scheduler's lock is dd->lock / bfqd->lock in the base kernel and the
#   scheduler lock (its lockdep class is named after the elevator) with the
#   series: one row, "sched-lock".
bench_lockstat() {
	local f=${TMPDIR:-/tmp}/lock_stat.$$

	[ -r /proc/lock_stat ] || return 0
	# one read of the file, then parse the copy; rows of the same lock
	# under several class names (#N versions, /N subclasses) are added up
	cat /proc/lock_stat > "$f" || return 0
	awk -v pre="$1" '
		$1 ~ /^(&q->queue_lock|&dd->lock|&bfqd->lock|mq-deadline|bfq|kyber)(#[0-9]+)?(\/[0-9]+)?:$/ {
			c = $1; sub(/(#[0-9]+)?(\/[0-9]+)?:$/, "", c)
			if (c != "&q->queue_lock")
				c = "sched-lock"
			if (!(c in acq)) order[++n] = c
			con[c] += $3; acq[c] += $9
			if (!(c in hold) || $11 + 0 > hold[c]) hold[c] = $11 + 0
		}
		END {
			for (i = 1; i <= n; i++)
				print pre " class=" order[i] " con=" con[order[i]] " acq=" acq[order[i]] " hold=" hold[order[i]]
		}' "$f"
	rm -f "$f"
}
