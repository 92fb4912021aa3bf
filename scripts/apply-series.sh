#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Apply the block-batch series to a kernel git tree.
#
# patches/series lists the patches in order, one file name a line (the same
# order as patches/0*.patch).  Each patch is complete, as git format-patch
# wrote it: the new files it adds and its changes to them are in it, so this
# is 'git am' of each patch in turn.  The repository's copies of the new files
# (tools/testing/selftests/block-batch/, Documentation/block/, ...) are not
# read here: they are checked equal to the series (tests/host/test_am_01.sh)
# and regenerated from it by scripts/refresh-series.sh.
#
# Without --kdir the series goes onto branch 'block-batch' of the cached base
# tree (scripts/fetch-base.sh), unless that branch already holds the same
# patches on the same base with no change since (recorded in
# $target.applied): then the tree is left as it is.  With --kdir (or KDIR=)
# a *new* branch is made in a new worktree of the user's tree, so the user's
# checked-out branch and working tree are never touched.  A dirty tree is
# refused.  On any failure the patch and file are named, 'git am --abort'
# runs and everything this script created is removed.
#
# Prints the path of the patched tree on stdout.

set -u
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: $0 [--kdir DIR] [--base REF] [--branch NAME] [--patches DIR]
  --kdir DIR     your kernel git tree (default: \$KDIR, else the cached base)
  --base REF     commit to apply onto in DIR (default: HEAD of DIR)
  --branch NAME  new branch to create in DIR (default: block-batch/<date>)
  --patches DIR  series directory (default: patches/)
EOT
}

kdir=${KDIR:-}
base_ref=
branch=
pdir=${BB_PATCHES:-$BB_TOP/patches}
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) kdir=${2:?}; shift 2 ;;
	--base) base_ref=${2:?}; shift 2 ;;
	--branch) branch=${2:?}; shift 2 ;;
	--patches) pdir=${2:?}; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

need_tools git sed awk flock
[ -r "$pdir/series" ] || die "no series file in $pdir"

# --- parse the series -------------------------------------------------------
patches=()
while read -r p rest; do
	case "$p" in ""|\#*) continue ;; esac
	[ -z "$rest" ] || die "series: '$p $rest': one patch file a line"
	[ -f "$pdir/$p" ] || die "series names $p, which is not in $pdir"
	grep -q '^diff --git' "$pdir/$p" || die "series: $p has no diff"
	patches+=("$p")
done < "$pdir/series"
[ ${#patches[@]} -gt 0 ] || die "series in $pdir is empty"

# --- pick and prepare the target tree --------------------------------------
created_wt=
created_branch=
target=
cleanup_fail() {
	if [ -n "$target" ] && [ -d "$target/.git" -o -f "$target/.git" ]; then
		git -C "$target" am --abort >/dev/null 2>&1
	fi
	if [ -n "$created_wt" ]; then
		git -C "$kdir" worktree remove --force "$created_wt" >/dev/null 2>&1
		rm -rf "$created_wt"
		git -C "$kdir" worktree prune >/dev/null 2>&1
	fi
	if [ -n "$created_branch" ]; then
		git -C "$kdir" branch -D "$created_branch" >/dev/null 2>&1
	elif [ -n "$target" ]; then
		# our own cached tree: back to the bare base
		git -C "$target" reset -q --hard block-batch-base >/dev/null 2>&1
	fi
}

if [ -n "$kdir" ]; then
	[ -d "$kdir" ] || die "KDIR '$kdir' does not exist"
	kdir=$(realpath "$kdir")
	[ -f "$kdir/Makefile" ] && [ -d "$kdir/block" ] ||
		die "KDIR '$kdir' is not a kernel source tree (no Makefile or block/)"
	top=$(git -C "$kdir" rev-parse --show-toplevel 2>/dev/null) ||
		die "KDIR '$kdir' is not a git tree; the series is applied with 'git am'"
	[ "$top" = "$kdir" ] || die "KDIR '$kdir' is not the top of its git tree ($top)"
	gitdir=$(git -C "$kdir" rev-parse --absolute-git-dir)
	[ -d "$gitdir/rebase-apply" ] || [ -d "$gitdir/rebase-merge" ] &&
		die "KDIR '$kdir' has a 'git am' or rebase in progress; finish or abort it first"
	dirty=$(git -C "$kdir" status --porcelain --untracked-files=no)
	[ -z "$dirty" ] ||
		die "KDIR '$kdir' has uncommitted changes; commit or stash them first:"$'\n'"$dirty"
	base_ref=${base_ref:-HEAD}
	git -C "$kdir" rev-parse -q --verify "$base_ref^{commit}" >/dev/null ||
		die "'$base_ref' is not a commit in $kdir"
	branch=${branch:-block-batch/$(date +%Y%m%d-%H%M%S)}
	git check-ref-format --branch "$branch" >/dev/null 2>&1 ||
		die "'$branch' is not a valid branch name"
	git -C "$kdir" rev-parse -q --verify "refs/heads/$branch" >/dev/null &&
		die "branch '$branch' already exists in $kdir; pick another with --branch"
	target=$BB_CACHE/worktrees/$(echo "$kdir" | sha1sum | cut -c1-8)-${branch//\//-}
	[ -e "$target" ] && die "$target already exists; remove it or pick another --branch"
	mkdir -p "$(dirname "$target")"
	git -C "$kdir" worktree add -q -b "$branch" "$target" "$base_ref" ||
		die "cannot add a worktree for branch '$branch' of $kdir"
	created_wt=$target
	created_branch=$branch
	info "applying to new branch '$branch' of $kdir, in worktree $target"
else
	target=$("$BB_TOP/scripts/fetch-base.sh") || exit 1
	# One application to the cached base at a time: two 'git am' at once
	# break its index ("unable to write index file").  A second command
	# waits for the first, up to BB_APPLY_WAIT seconds (1800); the lock
	# goes with this process.
	exec 8> "$target.apply-lock" || die "cannot create $target.apply-lock"
	if ! flock -n 8; then
		info "waiting for another command that applies the series to $target"
		flock -w "${BB_APPLY_WAIT:-1800}" 8 ||
			die "another command kept applying the series to $target for ${BB_APPLY_WAIT:-1800}s"
	fi
	branch=${branch:-block-batch}
	# The same series on the same base, already applied and untouched:
	# leave the tree as it is, so that a command still reading it (a
	# build, checkpatch, a mutant's worktree) does not see it reset.
	stamp="$(git -C "$target" rev-parse -q --verify block-batch-base) $(
		for p in "${patches[@]}"; do cat "$pdir/$p"; done | git hash-object --stdin)"
	if [ -f "$target.applied" ] &&
	   [ "$(cat "$target.applied")" = "$stamp $(git -C "$target" rev-parse -q --verify HEAD)" ] &&
	   [ "$(git -C "$target" symbolic-ref -q HEAD)" = "refs/heads/$branch" ] &&
	   [ -z "$(git -C "$target" status --porcelain)" ]; then
		info "the series is on branch '$branch' of the cached base $target already, untouched"
		echo "$target"
		exit 0
	fi
	rm -f "$target.applied"
	[ -d "$target/.git/rebase-apply" ] && git -C "$target" am --abort >/dev/null 2>&1
	git -C "$target" checkout -q -f -B "$branch" block-batch-base ||
		die "cannot reset branch $branch of $target"
	git -C "$target" clean -q -f -d -x >/dev/null 2>&1
	info "applying to branch '$branch' of the cached base $target"
fi

git -C "$target" config user.name >/dev/null 2>&1 ||
	export GIT_COMMITTER_NAME=block-batch GIT_COMMITTER_EMAIL=block-batch@localhost

# --- apply -----------------------------------------------------------------
n=0
mkdir -p "$BB_CACHE"
log=$target.am.log
for p in "${patches[@]}"; do
	n=$((n + 1))
	if ! git -C "$target" am -q --keep-cr "$pdir/$p" >"$log" 2>&1; then
		bad=$(sed -n 's/^error: patch failed: \([^:]*\):.*/\1/p;s/^error: \([^:]*\): does not exist in index/\1/p;s/^error: \([^:]*\): already exists in index/\1/p;s/^error: \([^:]*\): already exists in working directory/\1/p' "$log" | head -n1)
		sed 's/^/  /' "$log" >&2
		cleanup_fail
		die "patch $n/${#patches[@]} '$p' does not apply${bad:+ (file: $bad)}; tree left as it was"
	fi
done
info "applied ${#patches[@]} patch(es) onto $(git -C "$target" rev-parse --short HEAD~${#patches[@]})"
[ -n "$kdir" ] || echo "$stamp $(git -C "$target" rev-parse HEAD)" > "$target.applied" ||
	die "cannot write $target.applied"
echo "$target"
