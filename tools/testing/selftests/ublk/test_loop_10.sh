#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A request that the ublk server completes short.  A page-copy READ has
# its data copied back, so the driver ends the bytes the server reported
# and requeues the rest.  Every other request (a WRITE, or a READ of a
# zero-copy, auto buffer registration or user-copy device) has nothing to
# copy back and ends whole, whatever the server reports.  Count the
# device's block_rq_requeue events for one 64 KiB direct read and one
# direct write across kublk's short sector, in each data copy mode, with
# and without UBLK_F_BATCH_IO: two for the page-copy read, none for the
# others.  The events are traced in a tracing instance of the test's own,
# one direction at a time.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

ERR_CODE=0

TRACE=/sys/kernel/tracing
[ -d "$TRACE/instances" ] || TRACE=/sys/kernel/debug/tracing
if [ ! -d "$TRACE/events/block/block_rq_requeue" ] ||
   [ ! -d "$TRACE/instances" ]; then
	echo "no block_rq_requeue tracepoint or tracing instances in $TRACE"
	exit "$UBLK_SKIP_CODE"
fi

_prep_test "loop" "short completions requeue only what was copied back"

# the first 64 KiB of the second MiB completes short twice: after sector
# 2053's five predecessors, then after sector 2053 alone
SHORT_SECTOR=2053

_create_backfile 0 64M

INSTANCE=$TRACE/instances/ublk_${TID}_$$
mkdir "$INSTANCE" || exit "$UBLK_SKIP_CODE"
trap 'rmdir "$INSTANCE"' EXIT
EVENT=$INSTANCE/events/block/block_rq_requeue

# _requeues DEV_ID R|W DD_ARGS...: the block_rq_requeue events of the
# device's reads (R) or writes (W) during one dd
_requeues() {
	local dev_t rw=$2

	dev_t=$(_get_disk_dev_t "$1")
	shift 2
	echo > "$INSTANCE/trace"
	echo "dev == $dev_t && rwbs ~ \"*$rw*\"" > "$EVENT/filter"
	echo 1 > "$EVENT/enable"
	if ! dd "$@" bs=64k count=1 status=none; then
		echo "dd $* failed" >&2
		echo -1
	else
		grep -c ' block_rq_requeue: ' "$INSTANCE/trace"
	fi
	echo 0 > "$EVENT/enable"
	echo 0 > "$EVENT/filter"
}

for mode in "${UBLK_COPY_MODES[@]}"; do
	_have_copy_mode "$mode" || continue

	# shellcheck disable=SC2086
	dev_id=$(_add_ublk_dev -t loop $mode --short_sector $SHORT_SECTOR \
		 "${UBLK_BACKFILES[0]}")
	_check_add_dev $TID $?

	dev=/dev/ublkb$dev_id
	reads=$(_requeues "$dev_id" R if="$dev" of=/dev/null skip=16 iflag=direct)
	writes=$(_requeues "$dev_id" W if=/dev/zero of="$dev" seek=16 oflag=direct)
	echo "${mode:-page copy}: $reads requeues for a short read," \
	     "$writes for a short write"
	case $mode in
	""|"-b") [ "$reads" -eq 2 ] || ERR_CODE=255 ;;
	*) [ "$reads" -eq 0 ] || ERR_CODE=255 ;;
	esac
	[ "$writes" -eq 0 ] || ERR_CODE=255

	_ublk_del_dev "$dev_id"
done

_cleanup_test

_show_result $TID $ERR_CODE
