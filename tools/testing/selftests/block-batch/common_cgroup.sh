# SPDX-License-Identifier: GPL-2.0
#
# cgroup2 with the io controller: cgroups that a test makes, and removes
# on every exit.
# Sourced by test_common.sh.

BB_CG_ROOT=/sys/fs/cgroup
BB_CGS=()
BB_CG_IO_ADDED=0

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
