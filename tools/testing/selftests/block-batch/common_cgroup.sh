# SPDX-License-Identifier: GPL-2.0
#
# cgroup2 with the io controller: cgroups that a test makes, and removes
# on every exit; or a cgroup-v1 hierarchy with the blkio controller,
# unmounted on every exit, which gives the controller back to cgroup2.
# Sourced by test_common.sh.

BB_CG_ROOT=/sys/fs/cgroup
BB_CGS=()
BB_CG_IO_ADDED=0
BB_CG1_DIR=
BB_CG1_MOUNTED=0

# _require_cgroup_io -- cgroup2 at $BB_CG_ROOT (mounted if it is not) with
#   the io controller, and the io controller enabled for the root's children
#   (given back by _cg_cleanup if this test enabled it); skip otherwise.
#   The caller arms "trap _cg_cleanup EXIT" first.
_require_cgroup_io() {
	if [ ! -e "$BB_CG_ROOT/cgroup.controllers" ]; then
		mkdir -p "$BB_CG_ROOT"
		mount -t cgroup2 cgroup2 "$BB_CG_ROOT" 2>/dev/null
	fi
	[ -e "$BB_CG_ROOT/cgroup.controllers" ] ||
		_skip "cgroup2 is not mounted at $BB_CG_ROOT and cannot be (CONFIG_CGROUPS)"
	grep -qw io "$BB_CG_ROOT/cgroup.controllers" ||
		_skip "cgroup2 has no io controller (CONFIG_BLK_CGROUP)"
	grep -qw io "$BB_CG_ROOT/cgroup.subtree_control" && return 0
	echo "+io" > "$BB_CG_ROOT/cgroup.subtree_control" ||
		_skip "cannot enable the io controller for child cgroups"
	BB_CG_IO_ADDED=1
}

# _cg_make CG -- make cgroup CG (a path), removed by _cg_cleanup; skip when
#   it cannot be made
_cg_make() {
	mkdir "$1" || _skip "cannot create cgroup $1"
	BB_CGS+=("$1")
}

# _cg_write FILE WORD... -- write the WORDs as one line to cgroup file
#   FILE; fail if the kernel refuses it
_cg_write() {
	local file=$1

	shift
	echo "$*" > "$file" 2>/dev/null && return 0
	_fail "the kernel refused '$*' in ${file#"$BB_CG_ROOT"/}"
	return 1
}

# _cg_remove_empty CG... -- remove each cgroup CG, which must be empty by
#   now (its tasks have exited and been reaped): fail for one that still
#   has tasks or cannot be removed
_cg_remove_empty() {
	local cg

	for cg; do
		if [ -n "$(cat "$cg/cgroup.procs")" ]; then
			_fail "${cg##*/} still has tasks: $(tr '\n' ' ' < "$cg/cgroup.procs")"
		elif ! rmdir "$cg"; then
			_fail "cannot remove cgroup ${cg##*/}"
		fi
	done
}

# _cg_cleanup -- on every exit: stop what still runs in the cgroups of
#   _cg_make, move it out, remove them (the last made first: children
#   before their parent) and give back +io if this test enabled it.
_cg_cleanup() {
	local cg pid try i

	for ((i = ${#BB_CGS[@]} - 1; i >= 0; i--)); do
		cg=${BB_CGS[$i]}
		[ -d "$cg" ] || continue
		for try in 1 2 3 4 5; do
			[ -n "$(cat "$cg/cgroup.procs")" ] || break
			while read -r pid; do
				kill -KILL "$pid" 2>/dev/null
			done < "$cg/cgroup.procs"
			sleep 1
		done
		rmdir "$cg" 2>/dev/null
	done
	BB_CGS=()
	if [ "$BB_CG_IO_ADDED" = 1 ]; then
		echo "-io" > "$BB_CG_ROOT/cgroup.subtree_control" 2>/dev/null
		BB_CG_IO_ADDED=0
	fi
}

# _cg_io_on_v2 -- the io controller is cgroup2's (not bound to a v1
#   hierarchy)
_cg_io_on_v2() {
	grep -qw io "$BB_CG_ROOT/cgroup.controllers" 2>/dev/null
}

# _cg1_blkio_cgroups -- the cgroups of the v1 hierarchy that has blkio,
#   its root included, as /proc/cgroups counts them until each is freed
_cg1_blkio_cgroups() {
	awk '$1 == "blkio" && $2 != 0 { print $3 }' /proc/cgroups
}

# _require_cgroup1_blkio DIR -- a cgroup-v1 hierarchy with the blkio
#   controller mounted at DIR (made if need be), unmounted by
#   _cg1_release.  cgroup2 gives the controller up only while none of its
#   cgroups uses it, dying ones included, so the mount is tried for up to
#   30 s; skip if it cannot be had.  The caller arms "trap '_cleanup_test;
#   _cg_cleanup; _cg1_release; _cg1_wait_io_back' EXIT" first: the disks
#   and the v1 cgroups of _cg_make go first.
_require_cgroup1_blkio() {
	local dir=$1 i

	_cg_io_on_v2 ||
		_skip "the io controller is not cgroup2's (CONFIG_BLK_CGROUP, or" \
		      "a v1 hierarchy has it)"
	grep -qw io "$BB_CG_ROOT/cgroup.subtree_control" &&
		_skip "cgroup2's root has the io controller enabled: it cannot" \
		      "move to a v1 hierarchy"
	mkdir -p "$dir" || _skip "cannot make $dir"
	BB_CG1_DIR=$dir
	for i in $(seq 30); do
		if mount -t cgroup -o blkio bb_blkio "$dir" 2>/dev/null; then
			BB_CG1_MOUNTED=1
			return 0
		fi
		sleep 1
	done
	_skip "cannot mount a cgroup-v1 hierarchy with blkio in 30 s" \
	      "(cgroup2's io controller still in use?)"
}

# _cg1_release -- unmount the hierarchy of _require_cgroup1_blkio once its
#   removed cgroups (_cg_cleanup) are freed: an unmount frees a hierarchy
#   only if none is left in it (cgroup_kill_sb()), and a removed cgroup
#   stays until its last reference is put (a blkg's, a bio's).  Waits
#   while /proc/cgroups counts more than the root and the count goes down
#   within BB_STALL_SECS; false if cgroups are still held then (a leaked
#   reference), after unmounting all the same.  May run more than once.
_cg1_release() {
	local n last still=0 rc=0

	[ "${BB_CG1_MOUNTED:-0}" = 1 ] || return 0
	last=$(_cg1_blkio_cgroups)
	while [ "${last:-1}" -gt 1 ]; do
		sleep 1
		n=$(_cg1_blkio_cgroups)
		if [ "${n:-1}" -lt "$last" ]; then
			last=$n still=0
		elif [ $((still += 1)) -ge "$BB_STALL_SECS" ]; then
			_log "$((last - 1)) cgroups of the v1 hierarchy still held" \
			     "after $BB_STALL_SECS s without one freed"
			rc=1
			break
		fi
	done
	umount "$BB_CG1_DIR" && BB_CG1_MOUNTED=0
	return $rc
}

# _cg1_wait_io_back -- after _cg1_release: wait for the kernel to free the
#   v1 hierarchy and give the io controller back to cgroup2, for as long
#   as a stall takes (BB_STALL_SECS, five times over: the hierarchy's
#   last cgroup is freed after an RCU grace period); false if it has not.
#   Waits once: a later call (the EXIT trap's, after the verdict's) returns
#   at once, so that the runner's timeout does not replace the verdict
_cg1_wait_io_back() {
	local i

	[ -n "${BB_CG1_DIR:-}" ] || return 0
	[ "${BB_CG1_MOUNTED:-0}" = 0 ] || return 1
	for ((i = 0; i < 5 * BB_STALL_SECS; i++)); do
		if _cg_io_on_v2; then
			rmdir "$BB_CG1_DIR" 2>/dev/null
			BB_CG1_DIR=
			return 0
		fi
		sleep 1
	done
	BB_CG1_DIR=
	_cg_io_on_v2
}
