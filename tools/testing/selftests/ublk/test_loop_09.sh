#!/bin/bash
# SPDX-License-Identifier: GPL-2.0

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

ERR_CODE=0

if ! _have_program fio; then
	exit "$UBLK_SKIP_CODE"
fi

_prep_test "loop" "short and failed completions in every data copy mode"

# A read or write that covers sector SHORT_SECTOR completes short, so the
# driver must complete the rest of it again; one that covers ERROR_SECTOR
# fails.  Both lie far from the partition tables at the start and the end.
SHORT_SECTOR=2053
ERROR_SECTOR=98304

_create_backfile 0 64M
dd if=/dev/urandom of="${UBLK_BACKFILES[0]}" bs=1M count=64 conv=notrunc status=none

_check_loop_faults() {
	local dev=/dev/ublkb$1
	local mode=$2
	local file=${UBLK_BACKFILES[0]}

	# the first 2 MiB in 64 KiB direct reads; the one at sector 2048
	# completes short twice
	if ! cmp -s <(dd if="$dev" bs=64k count=32 iflag=direct status=none) \
		    <(dd if="$file" bs=64k count=32 status=none); then
		echo "$mode: a short read returned other data than the file's"
		return 1
	fi
	if dd if="$dev" of=/dev/null bs=4k skip=$((ERROR_SECTOR / 8)) count=1 \
	      iflag=direct status=none 2> /dev/null; then
		echo "$mode: a read of sector $ERROR_SECTOR did not fail"
		return 1
	fi
	if dd if=/dev/zero of="$dev" bs=4k seek=$((ERROR_SECTOR / 8)) count=1 \
	      oflag=direct status=none 2> /dev/null; then
		echo "$mode: a write of sector $ERROR_SECTOR did not fail"
		return 1
	fi
	# write and verify the first 4 MiB, across the short sector
	if ! _run_fio_verify_io --filename="$dev" --size=4M; then
		echo "$mode: fio verify failed"
		return 1
	fi
}

for mode in "${UBLK_COPY_MODES[@]}"; do
	_have_copy_mode "$mode" || continue

	# shellcheck disable=SC2086
	dev_id=$(_add_ublk_dev -t loop $mode --short_sector $SHORT_SECTOR \
		 --error_sector $ERROR_SECTOR "${UBLK_BACKFILES[0]}")
	_check_add_dev $TID $?

	_check_loop_faults "$dev_id" "${mode:-page copy}" || ERR_CODE=255
	_ublk_del_dev "$dev_id"
	[ $ERR_CODE -eq 0 ] || break
done

_cleanup_test

_show_result $TID $ERR_CODE
