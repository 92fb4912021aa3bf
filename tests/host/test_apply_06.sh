#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A second application of the same series to the cached base leaves the
# tree as it is, so that a command still reading it (a build, checkpatch,
# a mutant's worktree) does not see it reset under it.  A changed series,
# or a tree changed by hand since, is applied again from the base.
. "$(dirname "$0")/lib.sh"

base=$(mk_cached_base)
mk_fake_series "$T/patches"
apply() {
	BB_PATCHES=$T/patches "$TOP/scripts/apply-series.sh" > "$T/out" 2> "$T/err" ||
		{ cat "$T/err"; fail "apply-series.sh failed"; }
}

apply
head=$(git -C "$base" rev-parse HEAD)
sleep 1	# a new 'git am' would make new commits, with a later date
apply
grep -q "already, untouched" "$T/err" || { cat "$T/err"; fail "no word that the series was there"; }
[ "$(git -C "$base" rev-parse HEAD)" = "$head" ] ||
	fail "the same series on an untouched tree was applied again"
echo "ok: the same series again leaves the tree at $(git -C "$base" rev-parse --short HEAD)"

# a hand edit: applied again, the edit gone
echo '/* hand */' >> "$base/block/blk-core.c"
apply
grep -q "applied 2 patch" "$T/err" || { cat "$T/err"; fail "a tree changed by hand was not applied again"; }
[ -z "$(git -C "$base" status --porcelain)" ] || fail "the hand edit survived the application"
echo "ok: a tree changed by hand is applied again"

# a changed series: applied again
head=$(git -C "$base" rev-parse HEAD)
sed -i 's/^Subject: \[PATCH 2\/2\] block: two/Subject: [PATCH 2\/2] block: second/' \
	"$T/patches/0002-block-two.patch"
apply
grep -q "applied 2 patch" "$T/err" || { cat "$T/err"; fail "a changed series was not applied again"; }
[ "$(git -C "$base" log -1 --format=%s)" = "block: second" ] ||
	fail "the changed series is not on the tree: $(git -C "$base" log -1 --format=%s)"
echo "ok: a changed series is applied again"
