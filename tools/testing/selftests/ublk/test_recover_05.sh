#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Quiesce a device while the server holds requests: fault_inject holds
# each I/O for up to 500ms, so UBLK_U_CMD_QUIESCE_DEV aborts the idle
# commands while the other requests wait in the server.  The server
# completes those with COMMIT_AND_FETCH_REQ, whose fetches only io_uring's
# cancel completes once the server's ring goes away, so it must exit
# without waiting for them: the device then becomes QUIESCED and recovers
# to LIVE.  Without UBLK_F_USER_RECOVERY_REISSUE a request the server
# dropped instead of completing it fails, and so does fio.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

ERR_CODE=0

if ! _have_feature "QUIESCE"; then
	exit "$UBLK_SKIP_CODE"
fi

if ! _have_program fio; then
	exit "$UBLK_SKIP_CODE"
fi

_prep_test "quiesce" "quiesce while the server holds requests"

args=(-t fault_inject -q 1 -d 8 -r 1 --delay_us 500000)
exercised=0
for _ in 1 2 3; do
	dev_id=$(_add_ublk_dev "${args[@]}")
	_check_add_dev $TID $?

	fio --name=job1 --filename=/dev/ublkb"${dev_id}" --ioengine=libaio \
		--direct=1 --rw=randread --iodepth=4 --size=64M \
		--runtime=6 --time_based > /dev/null 2>&1 &
	fio_pid=$!
	# fio takes a few seconds to start on a slow machine
	for ((j = 0; j < 100; j++)); do
		held=$(awk '{ print $1 + $2 }' \
			/sys/block/ublkb"${dev_id}"/inflight 2> /dev/null)
		[ "${held:-0}" -gt 0 ] && break
		sleep 0.2
	done
	[ "${held:-0}" -gt 0 ] && exercised=$((exercised + 1))

	state=$(__ublk_quiesce_dev "${dev_id}" "QUIESCED")
	if [ "$state" != "QUIESCED" ]; then
		echo "device isn't quiesced ($state) with ${held:-0} requests in flight"
		ERR_CODE=255
		__ublk_kill_daemon "${dev_id}" "QUIESCED" > /dev/null
	fi

	state=$(_recover_ublk_dev -n "${dev_id}" "${args[@]}")
	if [ "$state" != "LIVE" ]; then
		echo "failed to recover to LIVE ($state)"
		ERR_CODE=255
		# fails fio's requests, which no server would complete
		__remove_ublk_dev_return "${dev_id}"
		wait "$fio_pid"
		break
	fi
	if ! wait "$fio_pid"; then
		echo "fio failed across the quiesce"
		ERR_CODE=255
	fi
	if ! __remove_ublk_dev_return "${dev_id}"; then
		echo "delete dev ${dev_id} failed"
		ERR_CODE=255
	fi
	[ "$ERR_CODE" -ne 0 ] && break
done

if [ "$ERR_CODE" -eq 0 ] && [ "$exercised" -eq 0 ]; then
	echo "no request in flight at any quiesce"
	ERR_CODE=$UBLK_SKIP_CODE
fi

_cleanup_test
_show_result $TID $ERR_CODE
