#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kublk del sees the server release /dev/ublkcN even when that release
# comes before del looks for it.  The server releases the char device as
# it exits, once the stop has cancelled its commands, so a watch that del
# adds after the stop can miss it, and del then waits out its 10 s ("poll
# inotify timeout").  strace forces that order.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

if ! _have_program strace; then
	echo "strace is needed to hold del and the server in order"
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

_traced() {
	grep -q "TracerPid:[[:space:]]*[1-9]" "/proc/$1/status"
}

_stopped() {
	[ "$(awk '{ print $3 }' "/proc/$1/stat")" = T ]
}

# The char device opens again only once its last user has released it
_released() {
	{ true < "/dev/ublkc$1"; } 2> /dev/null
}

# _stop PID -- end an strace: what it holds goes on at once
_stop() {
	kill -9 "$1"
	wait "$1" 2> /dev/null
	return 0
}

# _del_in_order DEV_ID -- del of the device, with the release of the char
# device forced between del's check that the server is alive and del's
# wait for the release.  The server releases the char device as it exits
# (its mapping of the command buffers holds it), so strace holds it in
# exit_group() until del has checked it, and holds del after that check
# until the char device has been released.
_del_in_order() {
	local dev_id=$1 srv del srv_strace del_strace=
	local srv_log=${UBLK_TMP}.srv del_log=${UBLK_TMP}.del ret=255

	srv=$(_get_ublk_daemon_pid "$dev_id")
	strace -qq -f -p "$srv" -o "$srv_log" -e trace=exit_group \
		-e inject=exit_group:delay_enter=600s 2> /dev/null &
	srv_strace=$!
	# del stops itself, so that strace is attached before the stop
	(kill -STOP "$BASHPID"; _ublk_del_dev "$dev_id") 2> "${UBLK_TMP}" &
	del=$!
	if _wait_for "strace of the server" _traced "$srv" &&
	   _wait_for "del's stop" _stopped "$del"; then
		strace -qq -f -p "$del" -o "$del_log" -e trace=kill \
			-e inject=kill:delay_exit=600s 2> /dev/null &
		del_strace=$!
		_wait_for "strace of del" _traced "$del" &&
		kill -CONT "$del" &&
		_wait_for "del's check that the server is alive" \
			grep -q "kill(" "$del_log" &&
		_wait_for "the server's exit_group()" \
			grep -q "exit_group(" "$srv_log" &&
		_stop "$srv_strace" && srv_strace= &&
		_wait_for "the release of /dev/ublkc${dev_id}" \
			_released "$dev_id" && ret=0
	fi
	[ -z "$srv_strace" ] || _stop "$srv_strace"
	[ -z "$del_strace" ] || _stop "$del_strace"
	kill -CONT "$del"
	wait "$del"
	rm -f "$srv_log" "$del_log"
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
