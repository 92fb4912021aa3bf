#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Common helpers for the block-batch selftests.  Modelled on the ublk
# selftests: source this file, declare requirements with _require_*, set up
# with _prep_test, tear down with _cleanup_test and report with _show_result.

# test_<group>_<NN>.sh -> <group>_<NN>
TID=$(basename "$0" .sh)
TID=${TID#test_}

BB_SKIP_CODE=4
BB_SCHEDULERS=${BB_SCHEDULERS:-"none mq-deadline bfq kyber"}
BB_NULLB_CFS=/sys/kernel/config/nullb
BB_DEBUGFS=/sys/kernel/debug/block
BB_TRACEFS=/sys/kernel/tracing
BB_NULLB_NAMES=()

# The helpers, by concern (common_<concern>.sh next to this file).
for _bb_part in devices idle probes fio stress watchdog cgroup poll; do
	# shellcheck source=/dev/null
	. "$(dirname "${BASH_SOURCE[0]}")/common_$_bb_part.sh" || exit 1
done
unset _bb_part

_log() {
	echo "# $TID: $*"
}

# _skip REASON -- skip the whole test, like blktests' SKIP_REASONS
_skip() {
	echo "# $TID: SKIP: $*"
	_cleanup_test
	echo "$TID : [SKIP]"
	exit "$BB_SKIP_CODE"
}

_fail() {
	echo "# $TID: FAIL: $*"
	BB_ERR=1
}

_have_program() {
	command -v "$1" >/dev/null 2>&1
}

_require_root() {
	[ "$(id -u)" -eq 0 ] || _skip "must run as root"
}

_require_program() {
	_have_program "$1" || _skip "$1 is not installed"
}

# _require_fio_engine ENGINE
_require_fio_engine() {
	fio --enghelp 2>/dev/null | grep -qw "$1" ||
		_skip "fio has no $1 ioengine"
}

_require_debugfs() {
	[ -d /sys/kernel/debug/block ] && return 0
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -d /sys/kernel/debug/block ] ||
		_skip "block debugfs is not available (CONFIG_BLK_DEBUG_FS)"
}

# The watchdog's sysrq-w dump (stacks of blocked tasks) sits between these
# kernel log lines: it is evidence of a stall, not a splat of its own.
BB_SYSRQ_BEGIN="block-batch-selftest: stall dump begin"
BB_SYSRQ_END="block-batch-selftest: stall dump end"

# Everything the kernel must never say while a test runs.
BB_SPLAT_RE='WARNING:|BUG:|Oops|general protection fault'
BB_SPLAT_RE+='|possible circular locking|possible recursive locking'
BB_SPLAT_RE+='|inconsistent lock state|possible irq lock inversion'
BB_SPLAT_RE+='|suspicious RCU usage|turning off the locking correctness validator'
BB_SPLAT_RE+='|KASAN:|KCSAN:|UBSAN:|blocked for more than|soft lockup|hard LOCKUP'
BB_SPLAT_RE+='|Call Trace:'

# _debug_locks -- lockdep's debug_locks: 1 while it checks, 0 once a
#   report (or an internal limit) turned it off until the next boot
_debug_locks() {
	awk '$1 == "debug_locks:" { print $2 }' /proc/lockdep_stats 2>/dev/null
}

# _require_lockdep -- the test's verdict rests on lockdep's reports, so
#   lockdep must be proving locking (CONFIG_PROVE_LOCKING: the kernel has
#   /proc/lockdep_chains) and still on: skips without it, fails when an
#   earlier report turned it off; _show_result fails the test when it is
#   off at the end
_require_lockdep() {
	[ -r /proc/lockdep_chains ] ||
		_skip "lockdep is not proving locking (CONFIG_PROVE_LOCKING):" \
		      "its reports are what this test checks"
	if [ "$(_debug_locks)" = 1 ]; then
		BB_NEED_LOCKDEP=1
		return 0
	fi
	_fail "lockdep was off before the test started (debug_locks" \
	      "$(_debug_locks)): an earlier report turned it off"
	_show_result
}

# _prep_test DESCRIPTION -- mark the kernel log and make a scratch directory
_prep_test() {
	BB_ERR=0
	BB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/block-batch-$TID.XXXXXX")
	# where the watchdog reports a stall (fixed: subshells may move BB_TMP)
	BB_STALL_FILE=$BB_TMP/stalled
	# tracing_on as the test found it, for _cleanup_test (a test
	# that stops tracing must not stop it for the next one)
	BB_TRACING_ON=$(cat "$BB_TRACEFS/tracing_on" 2>/dev/null)
	BB_MARK="block-batch-selftest: start $TID $$ $RANDOM"
	BB_T0=$(_now)
	echo "$BB_MARK" > /dev/kmsg 2>/dev/null || BB_MARK=
	_log "$*"
}

# _check_dmesg -- fail on any splat logged since _prep_test
_check_dmesg() {
	local log

	[ -n "${BB_MARK:-}" ] || return 0
	if ! dmesg | grep -qF "$BB_MARK"; then
		# A flood of reports pushed the test's start out of the ring
		# buffer: it cannot be checked, and a flood is no pass.
		dmesg | tail -n 40 | sed 's/^/# dmesg: /'
		_fail "the kernel log overflowed since the test started"
		return
	fi
	log=$(dmesg | sed -n "/$BB_MARK/,\$p" |
	      sed "/$BB_SYSRQ_BEGIN/,/$BB_SYSRQ_END/d")
	if echo "$log" | grep -Eq "$BB_SPLAT_RE"; then
		echo "$log" | sed 's/^/# dmesg: /' | head -n 80
		_fail "kernel splat in dmesg"
	fi
}

_cleanup_test() {
	local name

	_watchdog_stop
	if _stalled; then
		# Removing a device that holds a stranded request would hang.
		_log "stalled: leaving" "${BB_DM_NAMES[*]} ${BB_NULLB_NAMES[*]}" \
			"${BB_SDEBUG_DEV:-}" \
			"$(sed 's/^/ublkb/' "$BB_TMP/ublk.ids" 2>/dev/null)" "in place"
	else
		# dm devices first: they hold the null_blks under them open.
		for name in "${BB_DM_NAMES[@]}"; do
			_mpath_remove "$name" && continue
			_fail "cannot remove dm device $name"
			_log "leaving ${BB_NULLB_NAMES[*]} in place: $name holds them"
			BB_NULLB_NAMES=()
		done
		for name in "${BB_NULLB_NAMES[@]}"; do
			_nullb_destroy "$name"
		done
		[ -z "${BB_SDEBUG_HOW:-}" ] || _sdebug_remove
		_ublk_del_all
	fi
	BB_DM_NAMES=() BB_NULLB_NAMES=()
	[ -z "${BB_TRACING_ON:-}" ] ||
		echo "$BB_TRACING_ON" > "$BB_TRACEFS/tracing_on"
	[ -n "${BB_TMP:-}" ] && rm -rf "$BB_TMP"
}

# _show_result -- check dmesg, clean up, print and exit with the verdict
#   (FAIL over SKIP over PASS: see _too_slow)
_show_result() {
	_watchdog_stop
	if _stalled; then
		_fail "stalled: $(cat "$BB_TMP/stalled")"
		sed 's/^/# stall: /' "$BB_TMP/stall.txt"
	fi
	[ -z "${BB_NEED_LOCKDEP:-}" ] || [ "$(_debug_locks)" = 1 ] ||
		_fail "lockdep turned itself off during the test (debug_locks" \
		      "$(_debug_locks)): what it no longer checked is unchecked"
	_check_dmesg
	_cleanup_test
	_log "took $(($(_now) - ${BB_T0:-0})) s"
	if [ "${BB_ERR:-1}" -ne 0 ]; then
		echo "$TID : [FAIL]"
		exit 1
	fi
	if [ ${#BB_SKIP_REASONS[@]} -gt 0 ]; then
		echo "# $TID: SKIP: ${BB_SKIP_REASONS[*]}"
		echo "$TID : [SKIP]"
		exit "$BB_SKIP_CODE"
	fi
	echo "$TID : [PASS]"
	exit 0
}
