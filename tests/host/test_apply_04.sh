#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KDIR: the base kernel that run.sh, test.sh and blktests-upstream.sh
# build is the commit the series went onto, even in a tree whose
# block-batch-base ref (a clone of the cached tree has one) names an
# older commit.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/lib.sh"

mk_fake_kernel "$T/linux"
mk_fake_series "$T/patches"
export BB_PATCHES=$T/patches
git -C "$T/linux" tag block-batch-base
echo "int e;" > "$T/linux/block/blk-user.c"
git -C "$T/linux" add block/blk-user.c
git -C "$T/linux" commit -q -m "block: a commit of the user's base"
want=$(git -C "$T/linux" rev-parse HEAD)

wt=$("$TOP/scripts/apply-series.sh" --kdir "$T/linux" --branch bb/test) ||
	fail "apply-series failed"
base=$(bb_base_worktree "$wt") || fail "bb_base_worktree failed"
got=$(git -C "$base" rev-parse HEAD)
[ "$got" = "$want" ] ||
	fail "base worktree at $(git -C "$base" log -1 --format=%s), not at the commit the series went onto"
echo "ok: base worktree $base at the commit under the series, not at block-batch-base"
