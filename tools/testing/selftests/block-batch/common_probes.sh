# SPDX-License-Identifier: GPL-2.0
#
# Kprobes and trace events: counting what the kernel did.
# Sourced by test_common.sh.

# _ksym_present NAME -- the kernel (or a loaded module) has function NAME
_ksym_present() {
	awk -v f="$1" '$3 == f { found = 1 } END { exit !found }' /proc/kallsyms
}

# _kprobes_add GROUP PROBE... -- each PROBE ("NAME FUNCTION [FETCHARGS]") as
#   the kprobe event GROUP/NAME, or with "r:NAME FUNCTION" as a return probe;
#   if one cannot be added, prints its function and returns 1
_kprobes_add() {
	local group=$1 p t

	shift
	for p in "$@"; do
		t=p
		case $p in r:*) t=r p=${p#r:} ;; esac
		if ! echo "$t:$group/$p" >> "$BB_TRACEFS/kprobe_events" 2>/dev/null; then
			p=${p#* }
			echo "${p%% *}"
			return 1
		fi
	done
}

# _kprobes_del GROUP PROBE... -- the kprobe events of _kprobes_add disabled
#   and gone; quiet about those that are not there
_kprobes_del() {
	local group=$1 p

	shift
	[ -d "$BB_TRACEFS/events/$group" ] &&
		echo 0 > "$BB_TRACEFS/events/$group/enable"
	for p in "$@"; do
		p=${p#r:}
		echo "-:$group/${p%% *}" >> "$BB_TRACEFS/kprobe_events" 2>/dev/null
	done
	return 0
}

# _trace_buf_kb -- the ring buffer's size per CPU in KiB (buffer_size_kb
#   reads "N", or "N (expanded: M)" before the buffer is first used: M)
_trace_buf_kb() {
	sed -E 's/.*expanded: ([0-9]+).*/\1/; s/[^0-9].*//' "$BB_TRACEFS/buffer_size_kb"
}

# _trace_lost -- events the ring buffer lost since it was last cleared: it
#   overran, or dropped events when not overwriting
_trace_lost() {
	cat "$BB_TRACEFS"/per_cpu/cpu*/stats 2>/dev/null |
		awk '$1 == "overrun:" { o += $2 }
		     $1 == "dropped" && $2 == "events:" { o += $3 }
		     END { print o + 0 }'
}

# _kprobe_profile GROUP NAME COLUMN -- column 2 (hits) or 3 (misses) of
#   the kprobe event GROUP/NAME in kprobe_profile ("EVENT HITS MISSES",
#   EVENT with or without its group); 0 when absent
_kprobe_profile() {
	awk -v e="$2" -v ge="$1/$2" -v c="$3" '$1 == e || $1 == ge { print $c; f = 1 }
		END { if (!f) print 0 }' "$BB_TRACEFS/kprobe_profile"
}

# _kprobe_hits GROUP NAME -- how often the kprobe event GROUP/NAME fired
#   since it was added (counted while the event is enabled, whether or
#   not tracing_on lets it into the trace)
_kprobe_hits() {
	_kprobe_profile "$1" "$2" 2
}

# _kprobe_misses GROUP PROBE... -- the hits that the kprobe events
#   GROUP/PROBE missed, added up (a return probe with no free instance);
#   each PROBE as _kprobes_add takes it ("[r:]NAME FUNCTION ...") or its
#   NAME alone
_kprobe_misses() {
	local group=$1 p m=0

	shift
	for p in "$@"; do
		p=${p#r:}
		m=$((m + $(_kprobe_profile "$group" "${p%% *}" 3)))
	done
	echo "$m"
}

# _require_tracefs -- tracefs mounted at BB_TRACEFS; skip otherwise
_require_tracefs() {
	[ -d "$BB_TRACEFS/events" ] ||
		mount -t tracefs nodev "$BB_TRACEFS" 2>/dev/null
	[ -d "$BB_TRACEFS/events" ] || _skip "tracefs is not available"
}

# _require_kprobes -- kprobe events can be added (after _require_trace_event
#   or _require_tracefs, which mount tracefs); skip otherwise
_require_kprobes() {
	[ -w "$BB_TRACEFS/kprobe_events" ] ||
		_skip "no kprobe events (CONFIG_KPROBES, CONFIG_KPROBE_EVENTS)"
}

# _require_trace_event SYSTEM/EVENT -- tracefs with that event, and no one
#   else tracing (do not take the ring buffer away from them)
_require_trace_event() {
	[ -d "$BB_TRACEFS/events" ] ||
		mount -t tracefs nodev "$BB_TRACEFS" 2>/dev/null
	[ -d "$BB_TRACEFS/events/$1" ] ||
		_skip "tracefs or the ${1%%/*}:${1#*/} event is not available"
	[ "$(cat "$BB_TRACEFS/tracing_on")" = 0 ] ||
		[ -z "$(grep -v '^#' "$BB_TRACEFS/set_event" 2>/dev/null)" ] ||
		_skip "tracefs is in use"
}

# _probe_trace_start KB GROUP PROBE... -- tracing off, then the kprobe
#   events GROUP/... of _kprobes_add, a ring buffer of KB KiB per CPU, the
#   global trace clock (events of different CPUs in the order they
#   happened) and the context flags in every line (irq-info: irqs-off,
#   need-resched, hardirq/softirq, ...); _probe_trace_stop undoes it all.
#   The caller arms "trap _probe_trace_stop EXIT" first (the runner's
#   timeout sends SIGTERM).  Skips when a probe cannot be added.
_probe_trace_start() {
	local kb=$1 fn

	BB_PT_GROUP=$2
	shift 2
	BB_PT_PROBES=("$@")
	BB_PT_ON=$(cat "$BB_TRACEFS/tracing_on")
	echo 0 > "$BB_TRACEFS/tracing_on"
	if ! fn=$(_kprobes_add "$BB_PT_GROUP" "$@"); then
		_probe_trace_stop
		_skip "cannot probe $fn: no such function in this kernel" \
		      "(inlined?), or its arguments cannot be fetched"
	fi
	BB_PT_BUF=$(_trace_buf_kb)
	echo "$kb" > "$BB_TRACEFS/buffer_size_kb" ||
		_skip "cannot size the trace buffer to $kb KiB per CPU"
	BB_PT_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$BB_TRACEFS/trace_clock")
	echo global > "$BB_TRACEFS/trace_clock" ||
		_skip "cannot select the global trace clock"
	BB_PT_IRQ=$(cat "$BB_TRACEFS/options/irq-info")
	echo 1 > "$BB_TRACEFS/options/irq-info"
	echo > "$BB_TRACEFS/trace"
}

# _probe_trace_on -- an empty trace, then the probes of _probe_trace_start
#   recording
_probe_trace_on() {
	echo > "$BB_TRACEFS/trace"
	echo 1 > "$BB_TRACEFS/events/$BB_PT_GROUP/enable"
	echo 1 > "$BB_TRACEFS/tracing_on"
}

# _probe_trace_off -- the probes stop recording; the trace stays to be read
_probe_trace_off() {
	echo 0 > "$BB_TRACEFS/tracing_on"
	echo 0 > "$BB_TRACEFS/events/$BB_PT_GROUP/enable"
}

# _probe_trace_stop -- the probes of _probe_trace_start gone and the trace
#   settings as they were; may run more than once
_probe_trace_stop() {
	[ -n "${BB_PT_GROUP:-}" ] || return 0
	echo 0 > "$BB_TRACEFS/tracing_on"
	[ -z "${BB_PT_BUF:-}" ] ||
		echo "$BB_PT_BUF" > "$BB_TRACEFS/buffer_size_kb"
	[ -z "${BB_PT_CLOCK:-}" ] ||
		echo "$BB_PT_CLOCK" > "$BB_TRACEFS/trace_clock"
	[ -z "${BB_PT_IRQ:-}" ] ||
		echo "$BB_PT_IRQ" > "$BB_TRACEFS/options/irq-info"
	_kprobes_del "$BB_PT_GROUP" "${BB_PT_PROBES[@]}"
	echo > "$BB_TRACEFS/trace"
	[ -z "${BB_PT_ON:-}" ] || echo "$BB_PT_ON" > "$BB_TRACEFS/tracing_on"
	BB_PT_GROUP='' BB_PT_BUF='' BB_PT_CLOCK='' BB_PT_IRQ='' BB_PT_ON=''
}
