#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bfq with cgroup weights (CONFIG_BFQ_GROUP_IOSCHED).
#
# Two cgroup2 children with different io.bfq.weight (100 and 1000) each run
# a fio write+verify job set on their own region of one bfq null_blk, while
# the default and per-device weights of both groups are changed a few times.
# bfq then schedules bfq_groups (one per blkg) and moves their entities
# between weights under I/O.  Checks:
#  - both fio runs verify without error;
#  - each cgroup's io.stat has a line for the device with wbytes > 0: the
#    I/O was charged to those cgroups, so bfq queued it in their groups;
#  - a per-device weight written to io.bfq.weight reads back (bfq's
#    per-blkg policy data exists for the device);
#  - the cgroups are removed while the device still runs bfq
#    (bfq_pd_offline()), then the device switches to none (bfq exit);
#  - no lockdep report or other splat (skips when lockdep is not proving
#    locking, fails when it turned itself off).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

_require_root
_require_program fio
_require_fio_engine io_uring
_require_null_blk
_require_lockdep

trap _cg_cleanup EXIT
_require_cgroup_io

_prep_test "bfq cgroup weights under fio verify, cgroup removal, bfq exit"

dev=bb_$TID
_nullb_create "$dev" || _skip "cannot create a null_blk device"
_require_sched "$dev" bfq || _skip "bfq is not available"
devno=$(cat "/sys/block/$dev/dev")

cga=$BB_CG_ROOT/bb_${TID}_a
cgb=$BB_CG_ROOT/bb_${TID}_b
for cg in "$cga" "$cgb"; do
	_cg_make "$cg"
done
[ -e "$cga/io.bfq.weight" ] ||
	_skip "no io.bfq.weight in child cgroups (CONFIG_BFQ_GROUP_IOSCHED)"
_set_sched "$dev" bfq || _fail "cannot select bfq"
echo 100 > "$cga/io.bfq.weight" || _fail "cannot set io.bfq.weight 100"
echo 1000 > "$cgb/io.bfq.weight" || _fail "cannot set io.bfq.weight 1000"
grep -qx "default 100" "$cga/io.bfq.weight" ||
	_fail "io.bfq.weight of a: $(head -n1 "$cga/io.bfq.weight")"
grep -qx "default 1000" "$cgb/io.bfq.weight" ||
	_fail "io.bfq.weight of b: $(head -n1 "$cgb/io.bfq.weight")"

# _cg_fio CG OFFSET -- fio write+verify from inside cgroup CG, 4 jobs of
#   8 MiB from OFFSET; its own log directory so that the two can run at once
_cg_fio() {
	(
		echo "$BASHPID" > "$1/cgroup.procs" || exit 1
		BB_TMP=$BB_TMP/${1##*/}
		mkdir -p "$BB_TMP"
		_fio_verify "$dev" io_uring --size=8M --offset_increment=8M \
			--offset="$2"
	)
}

if [ "$BB_ERR" -eq 0 ]; then
	_watchdog_start "$dev"
	_cg_fio "$cga" 0 &
	pida=$!
	_cg_fio "$cgb" 64M &
	pidb=$!

	# Per-device weights only once both cgroups have a blkg for the
	# device (their io.stat lists it).  Creating one from
	# blkg_conf_prep() allocates with GFP_KERNEL under q->blkcg_mutex,
	# which lockdep reports against bfq's blkcg_activate_policy() under
	# q->elevator_lock and a frozen queue (fs_reclaim ->
	# q_usage_counter -> q->elevator_lock -> q->blkcg_mutex): a v7.3 issue in
	# blk-cgroup that the scheduler lock does not touch.
	for try in $(seq 60); do
		grep -q "^$devno " "$cga/io.stat" &&
			grep -q "^$devno " "$cgb/io.stat" && break
		sleep 1
	done
	grep -q "^$devno " "$cga/io.stat" && grep -q "^$devno " "$cgb/io.stat" ||
		_fail "no I/O of the cgroups reached $devno within 60 s"

	# Change the weights while both run: default weights, then
	# per-device weights, then per-device weights back to default.
	changes=0
	wa=(100 500 1000 300)
	while ! _stalled && { kill -0 $pida 2>/dev/null || kill -0 $pidb 2>/dev/null; }; do
		i=$((changes % 4))
		case $((changes % 3)) in
		0)
			echo "${wa[$i]}" > "$cga/io.bfq.weight" &&
			echo "${wa[$(((i + 2) % 4))]}" > "$cgb/io.bfq.weight" ;;
		1)
			echo "$devno ${wa[$(((i + 1) % 4))]}" > "$cga/io.bfq.weight" &&
			echo "$devno ${wa[$(((i + 3) % 4))]}" > "$cgb/io.bfq.weight" ;;
		2)
			echo "$devno default" > "$cga/io.bfq.weight" &&
			echo "$devno default" > "$cgb/io.bfq.weight" ;;
		esac || { _fail "changing io.bfq.weight failed"; break; }
		changes=$((changes + 1))
		sleep 1
	done
	_wait_pid $pida || _fail_io "fio write+verify in cgroup a failed"
	_wait_pid $pidb || _fail_io "fio write+verify in cgroup b failed"
	_watchdog_stop
	_log "$changes weight changes while fio ran in both cgroups"
	[ $changes -ge 3 ] || _fail "only $changes weight changes under I/O"

	for cg in "$cga" "$cgb"; do
		wbytes=$(awk -v d="$devno" '$1 == d {
				for (i = 2; i <= NF; i++)
					if ($i ~ /^wbytes=/) print substr($i, 8)
			}' "$cg/io.stat")
		_log "${cg##*/} io.stat: $(grep "^$devno " "$cg/io.stat")"
		[ "${wbytes:-0}" -gt 0 ] ||
			_fail "${cg##*/}: io.stat has no writes to $devno"
		echo "$devno 700" > "$cg/io.bfq.weight" ||
			_fail "${cg##*/}: cannot set the weight of $devno"
		grep -qx "$devno 700" "$cg/io.bfq.weight" ||
			_fail "${cg##*/}: per-device weight does not read back:" \
			      "$(tr '\n' ' ' < "$cg/io.bfq.weight")"
	done
fi

# After a stall nothing may freeze the queue (scheduler switch, bfq exit).
_stalled && _show_result

# The fio subshells have exited and been reaped: the cgroups are empty.
_cg_remove_empty "${BB_CGS[@]}"
_sched_is "$dev" bfq ||
	_fail "the device left bfq before the cgroups were removed"
_set_sched "$dev" none || _fail "cannot switch from bfq to none"
_log "cgroups removed under bfq, then bfq -> none"
_cg_cleanup

_show_result
