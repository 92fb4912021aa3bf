#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kublk del sees the server release /dev/ublkcN even when that release
# comes before del looks for it.  The server exits once the stop has
# cancelled its commands, and the char device is released as it exits,
# so a watch that del adds after the stop can miss the release, and del
# then waits out its 10 s ("poll inotify timeout").  strace forces that
# order.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

if ! _have_program strace; then
	echo "strace is needed to hold del and the server in order"
	exit "$UBLK_SKIP_CODE"
fi
if ! strace -qq -o /dev/null -e trace=getpid \
		-e inject=getpid:delay_exit=1 true 2> /dev/null; then
	echo "strace cannot trace here, or cannot delay a system call"
	exit "$UBLK_SKIP_CODE"
fi

ERR_CODE=0

_prep_test "null" "del sees a server release that comes first"

# _wait_for WHAT CMD... -- until CMD succeeds; 600 tries, 0.1 s apart
_wait_for() {
	local what=$1 i

	shift
	for ((i = 0; i < 600; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	echo "$what: not seen in 600 tries"
	return 1
}

_is_traced() {
	grep -q "TracerPid:[[:space:]]*[1-9]" "/proc/$1/status"
}

_is_stopped() {
	[ "$(awk '{ print $3 }' "/proc/$1/stat")" = T ]
}

# The driver lets /dev/ublkcN be opened again only once the release of
# the last open is done
_ublkc_released() {
	{ true < "/dev/ublkc$1"; } 2> /dev/null
}

# _strace_stop PID -- end an strace: what it holds goes on at once
_strace_stop() {
	kill -9 "$1" 2> /dev/null
	wait "$1" 2> /dev/null
	return 0
}

# an strace left holding a process when the test ends early lets it go
STRACES=()
_strace_stop_all() {
	local p

	for p in "${STRACES[@]}"; do
		kill -9 "$p" 2> /dev/null
	done
}
trap _strace_stop_all EXIT

# _del_in_order DEV_ID -- del of the device, with the release of the char
# device forced between del's check that the server is alive and del's
# wait for the release.  strace holds the server in exit_group(), alive,
# until del has checked it with kill(pid, 0), and holds del after that
# check until the char device has been released.
_del_in_order() {
	local dev_id=$1 srv del srv_strace del_strace=
	local srv_log=${UBLK_TMP}.srv del_log=${UBLK_TMP}.del ret=255

	srv=$(_get_ublk_daemon_pid "$dev_id")
	strace -qq -f -p "$srv" -o "$srv_log" -e trace=exit_group \
		-e inject=exit_group:delay_enter=600s 2> /dev/null &
	srv_strace=$!
	STRACES+=("$srv_strace")
	# del stops itself, so that strace is attached before the stop
	(kill -STOP "$BASHPID"; _ublk_del_dev "$dev_id") 2> "${UBLK_TMP}" &
	del=$!
	if _wait_for "strace of the server" _is_traced "$srv" &&
	   _wait_for "del's stop" _is_stopped "$del"; then
		strace -qq -f -p "$del" -o "$del_log" -e trace=kill \
			-e inject=kill:delay_exit=600s 2> /dev/null &
		del_strace=$!
		STRACES+=("$del_strace")
		_wait_for "strace of del" _is_traced "$del" &&
		kill -CONT "$del" &&
		_wait_for "del's check that the server is alive" \
			grep -q "kill(" "$del_log" &&
		_wait_for "the server's exit_group()" \
			grep -q "exit_group(" "$srv_log" &&
		_strace_stop "$srv_strace" && srv_strace= &&
		_wait_for "the release of /dev/ublkc${dev_id}" \
			_ublkc_released "$dev_id" && ret=0
	fi
	[ -z "$srv_strace" ] || _strace_stop "$srv_strace"
	[ -z "$del_strace" ] || _strace_stop "$del_strace"
	kill -CONT "$del" 2> /dev/null
	wait "$del"
	rm -f "$srv_log" "$del_log"
	if [ -e "/sys/class/ublk-char/ublkc${dev_id}" ]; then
		echo "del left device ${dev_id} behind"
		ret=255
	fi
	return $ret
}

# no zero copy, and zero copy where the driver supports it
modes=("")
if _have_feature "ZERO_COPY"; then
	modes+=("-z")
fi

for mode in "${modes[@]}"; do
	# shellcheck disable=SC2086
	dev_id=$(_add_ublk_dev -t null $mode)
	_check_add_dev $TID $?
	dd if=/dev/zero of=/dev/ublkb"${dev_id}" bs=64k count=64 \
		oflag=direct > /dev/null 2>&1
	_del_in_order "${dev_id}" || ERR_CODE=255
	if grep -q "inotify timeout" "${UBLK_TMP}"; then
		echo "del of device ${dev_id} (mode '${mode}')" \
		     "missed the server's release of the char device"
		ERR_CODE=255
	fi
done

_cleanup_test

_show_result $TID $ERR_CODE
