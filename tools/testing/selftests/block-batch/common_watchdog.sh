# SPDX-License-Identifier: GPL-2.0
#
# The stall watchdog: a test fails as stalled only when neither I/O
# completions nor its own progress have moved for BB_STALL_SECS, with a
# dump of the evidence.
# Sourced by test_common.sh.

# _stalled -- the watchdog has reported a stall in this test
_stalled() {
	[ -n "${BB_STALL_FILE:-}" ] && [ -e "$BB_STALL_FILE" ]
}

# _fail_io MESSAGE -- a workload failed: say "stalled" if it was a stall
_fail_io() {
	if _stalled; then
		_fail "stalled: $(cat "$BB_TMP/stalled") (during: $*)"
	else
		_fail "$*"
	fi
}

# _stall_dump DEV... -- the evidence of a stall, for the log
_stall_dump() {
	local dev h f c

	echo "blocked tasks (sysrq w) are in the kernel log"
	echo "$BB_SYSRQ_BEGIN" > /dev/kmsg 2>/dev/null
	echo w > /proc/sysrq-trigger 2>/dev/null
	echo "$BB_SYSRQ_END" > /dev/kmsg 2>/dev/null
	for dev in "$@"; do
		echo "== $dev: stat: $(cat "/sys/block/$dev/stat" 2>/dev/null)"
		echo "== $dev: inflight (in driver): $(cat "/sys/block/$dev/inflight" 2>/dev/null)"
		echo "== $dev: scheduler: $(cat "/sys/block/$dev/queue/scheduler" 2>/dev/null)"
		[ -d "$BB_DEBUGFS/$dev" ] || continue
		for f in "$BB_DEBUGFS/$dev"/state "$BB_DEBUGFS/$dev"/requeue_list \
			 "$BB_DEBUGFS/$dev"/sched/*; do
			[ -f "$f" ] && echo "== ${f#"$BB_DEBUGFS"/}:" &&
				head -n 20 "$f" 2>/dev/null
		done
		for h in "$BB_DEBUGFS/$dev"/hctx*; do
			for f in state flags dispatch busy active run dispatched \
				 tags sched_tags; do
				[ -f "$h/$f" ] || continue
				echo "== ${h#"$BB_DEBUGFS"/}/$f:"
				case $f in
				tags|sched_tags) grep -E '^(nr_tags|busy)=' "$h/$f" ;;
				*) head -n 20 "$h/$f" ;;
				esac
			done 2>/dev/null
			for f in "$h"/cpu*/*_rq_list; do
				# debugfs files have size 0: read them
				c=$(head -n 10 "$f" 2>/dev/null)
				[ -n "$c" ] && echo "== ${f#"$BB_DEBUGFS"/}:" &&
					echo "$c"
			done
		done
	done
}

# _stall_dump_bounded DEV... -- _stall_dump into $BB_TMP/stall.txt, in at
#   most 35 s: the dump reads debugfs files that take queue locks, and a
#   stuck lock holder must not hold up the caller too
_stall_dump_bounded() {
	BB_DEBUGFS=$BB_DEBUGFS BB_SYSRQ_BEGIN=$BB_SYSRQ_BEGIN \
	BB_SYSRQ_END=$BB_SYSRQ_END timeout -k 5 30 bash -c \
		"$(declare -f _stall_dump); _stall_dump \"\$@\"" bb-dump "$@" \
		> "$BB_TMP/stall.txt" 2>&1
}

# _pid_state PID -- the state letter of process PID (R, S, D, Z...), from
#   /proc/PID/stat; false if there is no such process
_pid_state() {
	local rest

	read -r rest 2>/dev/null < "/proc/$1/stat" || return 1
	# pid (comm) state ...; comm may hold spaces
	rest=${rest##*) }
	echo "${rest%% *}"
}

# _descendants PID -- every descendant of PID (from /proc: busybox has no
#   pgrep)
_descendants() {
	local f p pp rest
	local -A kids=()

	for f in /proc/[0-9]*/stat; do
		# pid (comm) state ppid ...; comm may hold spaces
		read -r rest 2>/dev/null < "$f" || continue
		p=${rest%% *}
		rest=${rest##*) }
		pp=${rest#* }
		pp=${pp%% *}
		kids[$pp]+="$p "
	done
	_desc_walk() {
		local c
		for c in ${kids[$1]:-}; do
			echo "$c"
			_desc_walk "$c"
		done
	}
	_desc_walk "$1"
}

# _watch_devs DEV... -- the DEVs, with each pattern (ublkb*) expanded to
#   the disks in /sys/block that match it now
_watch_devs() {
	local d p

	for d in "$@"; do
		case $d in
		*[*?]*)
			for p in /sys/block/$d; do
				[ -e "$p" ] && echo "${p##*/}"
			done ;;
		*) echo "$d" ;;
		esac
	done
}

# _watchdog_start DEV... -- watch the I/O of DEVs and the stress loops for
#   progress.  A DEV may be a pattern (ublkb*), read again at every poll, for
#   disks that a test adds and removes.  A caller may define _watch_progress,
#   which prints the state of its own workers (the processes of a test it runs):
#   any change of it is progress too.
#   Stall: for BB_STALL_SECS, no I/O completed on any DEV while
#   requests were in flight, or nothing moved at all (no completion, no
#   stress cycle).  Its loop opens nothing in /dev (no "2>/dev/null": its
#   stderr is opened once): a program under test may watch /dev with
#   inotify, as kublk's del does for the close of its char device, and
#   every open and close there would wake it.
#   On a stall it writes the reason to $BB_TMP/stalled, the
#   evidence to $BB_TMP/stall.txt, kills this test's fio processes (a stuck
#   one stays, but no longer holds the test up) and stops.  Also prints
#   progress lines, so that a cut log shows where a test was.
_watchdog_start() {
	local main=$$

	_watchdog_stop
	(
		trap 'exit 0' TERM
		exec 2>/dev/null
		own_fn=$(declare -F _watch_progress)
		sig='' t0=$(_now) t_io=$t0 t_any=$t0 t_prog=$t0
		while [ -d "/proc/$main" ]; do
			sleep "$BB_WATCH_SECS"
			now=$(_now)
			io='' infl=0
			devs=$(_watch_devs "$@")
			for d in $devs; do
				io+="$(_completed "$d") "
				infl=$((infl + $(_inflight "$d")))
			done
			# a disk added or removed is progress
			io+="($(echo $devs))"
			st='' sig_st='' own=''
			[ -z "$own_fn" ] || own=$(_watch_progress) sig_st+="$own "
			for f in "$BB_TMP"/stress.*; do
				case $f in *.out|*.tmp|*"stress.*") continue ;; esac
				read -r n i t m state < "$f" || continue
				# a finished loop is progress, but old news
				sig_st+="$n "
				[ "$state" = running ] || continue
				st+=" ${f##*/stress.} cycle $n of $m"
				st+=" ($i with requests in flight), $t s;"
			done
			[ "$io" != "${last_io:-}" ] && t_io=$now
			[ "$io $sig_st" != "${sig:-}" ] && t_any=$now
			last_io=$io sig="$io $sig_st"
			if [ $((now - t_prog)) -ge "$BB_PROGRESS_SECS" ]; then
				t_prog=$now
				echo "# $TID: progress: $((now - t0)) s:" \
				     "completed I/Os ${io% }, in flight $infl;$st${own:+ $own}"
			fi
			why=
			if [ "$infl" -gt 0 ] && [ $((now - t_io)) -ge "$BB_STALL_SECS" ]; then
				why="no I/O completed on $(echo $devs) for $((now - t_io)) s"
				why+=" with $infl requests in flight"
			elif [ $((now - t_any)) -ge "$BB_STALL_SECS" ]; then
				why="no I/O completed and no stress cycle on $(echo $devs)"
				[ -z "$own" ] || why+=", and no progress of the test's own"
				why+=" for $((now - t_any)) s"
			fi
			[ -n "$why" ] || continue
			echo "$why" > "$BB_STALL_FILE"
			for p in $(_descendants "$main"); do
				[ "$(cat "/proc/$p/comm" 2>/dev/null)" = fio ] &&
					kill -KILL "$p" 2>/dev/null
			done
			_stall_dump_bounded $devs
			exit 0
		done
	) &
	BB_WATCHDOG_PID=$!
}

_watchdog_stop() {
	local i

	[ -n "${BB_WATCHDOG_PID:-}" ] || return 0
	# After a stall it is writing the dump (at most 35 s, see timeout):
	# let it finish and exit by itself.
	if _stalled; then
		for i in $(seq 400); do
			kill -0 "$BB_WATCHDOG_PID" 2>/dev/null || break
			sleep 0.1
		done
	fi
	kill "$BB_WATCHDOG_PID" 2>/dev/null
	for i in $(seq 100); do
		kill -0 "$BB_WATCHDOG_PID" 2>/dev/null || break
		[ "$i" -eq 50 ] && kill -KILL "$BB_WATCHDOG_PID" 2>/dev/null
		sleep 0.1
	done
	kill -0 "$BB_WATCHDOG_PID" 2>/dev/null || wait "$BB_WATCHDOG_PID" 2>/dev/null
	BB_WATCHDOG_PID=
}
