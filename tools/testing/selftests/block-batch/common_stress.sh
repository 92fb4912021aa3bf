# SPDX-License-Identifier: GPL-2.0
#
# Bounded stress: loops bounded by a count of cycles and a time budget,
# progress counters, and verdicts that do not depend on the machine's load.
# Sourced by test_common.sh.

# A verdict must not depend on how loaded the machine is.  So:
#  - every stress loop is bounded by a count of cycles AND a time budget
#    (BB_STRESS_SECS), whichever ends first, and reports how many cycles it
#    completed and how many of them started with requests in flight;
#  - too few cycles to mean anything is a SKIP that names the figure, never a
#    pass (_stress_verdict); each test's minimum is a tenth or less of
#    what an idle 2-vCPU TCG guest completes in the budget (measured:
#    quiesce_01 fell from 158 to 47 cycles with two CPU hogs, a kernel
#    build and a second guest on the host, and to 16 with three guests);
#  - a hang is told from slowness by progress, not by wall time: the watchdog
#    (_watchdog_start) fails the test as "stalled" only when neither I/O
#    completions nor stress cycles have moved for BB_STALL_SECS, and dumps
#    the evidence (blocked tasks, hctx state, dispatch lists, busy tags);
#  - every budget plus the stall window stays well inside the runner's
#    timeout (settings), so the runner's kill is never the verdict.
BB_STRESS_SECS=${BB_STRESS_SECS:-60}	# time budget of one stress loop
BB_STRESS_MAX=${BB_STRESS_MAX:-}	# if set, at most this many cycles per loop
BB_STALL_SECS=${BB_STALL_SECS:-90}	# no progress for this long: a hang
BB_WATCH_SECS=${BB_WATCH_SECS:-2}	# watchdog poll interval
BB_PROGRESS_SECS=${BB_PROGRESS_SECS:-30}	# progress line interval
BB_SKIP_REASONS=()

# _skip_later REASON -- the test goes on, but its verdict becomes SKIP
#   (unless something fails), with REASON: it could not check what it is for.
_skip_later() {
	_log "$*"
	BB_SKIP_REASONS+=("$*")
}

# _skip_if_untested N REASON -- N things were tested; if none, and nothing
#   failed or gave a skip reason of its own, the test is a SKIP with REASON
_skip_if_untested() {
	[ "$1" -gt 0 ] || [ "$BB_ERR" -ne 0 ] || [ ${#BB_SKIP_REASONS[@]} -gt 0 ] ||
		_skip "$2"
}

# _too_slow REASON -- the test ran, but too little to mean anything
_too_slow() {
	_skip_later "machine too slow: $*"
}

# _now -- seconds since boot (monotonic, unlike date)
_now() {
	local up
	read -r up _ < /proc/uptime
	echo "${up%.*}"
}

# _inflight DEV -- requests of DEV accounted in flight (/sys/block/DEV/stat
#   field 9: from blk_account_io_start() to completion, so requests waiting
#   in the scheduler or on a dispatch list count too)
_inflight() {
	local f
	[ -r "/sys/block/$1/stat" ] && read -ra f < "/sys/block/$1/stat" ||
		{ echo 0; return; }
	echo "${f[8]:-0}"
}

# _inflight_soon DEV -- like _inflight, but waits up to 2 s for requests to
#   be in flight: a stress cycle then starts while fio has I/O outstanding
#   whenever fio runs, instead of only when a single sample lands on it
#   (on a loaded machine fio's gaps are long: one run of quiesce_02 got 3
#   resets, none of them sampled with requests in flight)
_inflight_soon() {
	local n i

	for i in $(seq 20); do
		n=$(_inflight "$1")
		[ "$n" -gt 0 ] && break
		[ "$i" -lt 20 ] && sleep 0.1
	done
	echo "$n"
}

# _completed DEV -- reads + writes + discards + flushes completed on DEV
_completed() {
	local f
	[ -r "/sys/block/$1/stat" ] && read -ra f < "/sys/block/$1/stat" ||
		{ echo 0; return; }
	echo $((f[0] + f[4] + ${f[11]:-0} + ${f[15]:-0}))
}

# _stress_begin NAME MAX -- in a stress loop (often a background subshell):
#   start counting cycles of NAME, at most MAX of them (or BB_STRESS_MAX,
#   if that is set and lower), for at most BB_STRESS_SECS seconds.  State
#   lives in $BB_TMP/stress.NAME, which the watchdog reads as progress and
#   _stress_result reads at the end.
_stress_begin() {
	BB_ST_NAME=$1 BB_ST_MAX=$2 BB_ST_N=0 BB_ST_INFL=0 BB_ST_T0=$(_now)
	[ -n "$BB_STRESS_MAX" ] && [ "$BB_ST_MAX" -gt "$BB_STRESS_MAX" ] &&
		BB_ST_MAX=$BB_STRESS_MAX
	_stress_state running
}

# _stress_continue -- true while the loop may run one more cycle
_stress_continue() {
	[ "$BB_ST_N" -lt "$BB_ST_MAX" ] &&
	[ $(($(_now) - BB_ST_T0)) -lt "$BB_STRESS_SECS" ] &&
	! _stalled
}

# _stress_step [INFLIGHT] -- one cycle done; INFLIGHT > 0: it started with
#   requests in flight.  (The watchdog prints the progress lines.)
_stress_step() {
	BB_ST_N=$((BB_ST_N + 1))
	[ "${1:-0}" -gt 0 ] && BB_ST_INFL=$((BB_ST_INFL + 1))
	_stress_state running
}

# _stress_end -- the loop is over (by count, time or stall)
_stress_end() {
	_stress_state "done"
}

# _stress_state STATE -- write the loop's state file whole (the watchdog
#   reads it meanwhile): "cycles inflight-cycles seconds max STATE"
_stress_state() {
	echo "$BB_ST_N $BB_ST_INFL $(($(_now) - BB_ST_T0)) $BB_ST_MAX $1" \
		> "$BB_TMP/stress.$BB_ST_NAME.tmp" &&
	mv -f "$BB_TMP/stress.$BB_ST_NAME.tmp" "$BB_TMP/stress.$BB_ST_NAME"
}

# _stress_spawn NAME CMD... -- run a stress loop in the background, its
#   output in a file (a loop stuck in the kernel must not hold the test
#   runner's pipe open); sets BB_STRESS_PID
_stress_spawn() {
	local name=$1
	shift

	rm -f "$BB_TMP/stress.$name"
	"$@" > "$BB_TMP/stress.$name.out" 2>&1 &
	BB_STRESS_PID=$!
	export BB_STRESS_PID
}

# _stress_wait NAME PID -- wait for the loop (stall-aware), show its output,
#   and set BB_CYCLES, BB_CYCLES_INFLIGHT, BB_CYCLES_SECS.  Returns the
#   loop's status, or 1 if it was abandoned after a stall.
_stress_wait() {
	local name=$1 pid=$2 rc

	_wait_pid "$pid"
	rc=$?
	cat "$BB_TMP/stress.$name.out" 2>/dev/null
	read -r BB_CYCLES BB_CYCLES_INFLIGHT BB_CYCLES_SECS _ \
		< "$BB_TMP/stress.$name" 2>/dev/null ||
		BB_CYCLES=0 BB_CYCLES_INFLIGHT=0 BB_CYCLES_SECS=0
	return $rc
}

# _stress_verdict WHAT MIN [inflight] -- after _stress_wait: log the figures;
#   fewer than MIN cycles is "too slow" (SKIP); with "inflight", no cycle
#   that started with requests in flight is a failure (nothing was tested).
_stress_verdict() {
	local what=$1 min=$2

	_log "$what: $BB_CYCLES cycles in $BB_CYCLES_SECS s," \
	     "$BB_CYCLES_INFLIGHT started with requests in flight"
	_stalled && return 1
	if [ "$BB_CYCLES" -lt "$min" ]; then
		_too_slow "$what: $BB_CYCLES cycles in $BB_CYCLES_SECS s (needs $min)"
		return 1
	fi
	if [ "${3:-}" = inflight ] && [ "$BB_CYCLES_INFLIGHT" -eq 0 ]; then
		_fail "$what: no cycle started with requests in flight"
		return 1
	fi
	return 0
}

# _wait_pid PID -- wait for a background child; gives up (status 1) once
#   the watchdog reports a stall, instead of waiting for a task that may be
#   stuck in the kernel for good.  Polled through /proc, not "kill -0 PID
#   2>/dev/null": see _watchdog_start on opening files in /dev.
_wait_pid() {
	local pid=$1

	while [ -d "/proc/$pid" ]; do
		if _stalled; then
			sleep "$BB_WATCH_SECS"
			[ -d "/proc/$pid" ] && return 1
			break
		fi
		sleep 0.2
	done
	wait "$pid"
}
