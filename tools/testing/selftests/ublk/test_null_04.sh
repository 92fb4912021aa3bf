#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kublk del sees the server close /dev/ublkcN: del of a null device, with
# zero copy and without, after some I/O, must not time out waiting for
# that close ("poll inotify timeout").  The server closes the char
# device as soon as the stop has cancelled its commands, so a watch added
# after the stop can miss the close; that happened in about half of the
# zero-copy deletes and few of the others.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

ERR_CODE=0

_prep_test "null" "del sees the server close the char device"

# mode:rounds
modes=(":2")
if _have_feature "ZERO_COPY"; then
	modes+=("-z:8")
fi

missed=0
for m in "${modes[@]}"; do
	mode=${m%:*}
	for ((i = 0; i < ${m#*:}; i++)); do
		# shellcheck disable=SC2086
		dev_id=$(_add_ublk_dev -t null $mode)
		_check_add_dev $TID $?
		dd if=/dev/zero of=/dev/ublkb"${dev_id}" bs=64k count=64 \
			oflag=direct > /dev/null 2>&1
		_ublk_del_dev "${dev_id}" 2> "${UBLK_TMP}"
		if grep -q "inotify timeout" "${UBLK_TMP}"; then
			echo "del of device ${dev_id} (mode '${mode}')" \
			     "missed the server's close"
			missed=$((missed + 1))
		fi
	done
done
[ "$missed" -eq 0 ] || ERR_CODE=255

_cleanup_test

_show_result $TID $ERR_CODE
