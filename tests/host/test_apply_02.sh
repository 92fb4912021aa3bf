#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A patch that does not apply: clear error naming the patch and the file;
# 'git am' aborted; the user's tree, branches and worktrees exactly as before.
. "$(dirname "$0")/lib.sh"

mk_fake_kernel "$T/linux"
mk_fake_series "$T/patches"
# make patch 2 conflict with the user's tree
sed -i 's/^int c;/int c = 3;/' "$T/linux/block/blk-core.c"
git -C "$T/linux" commit -q -a -m "conflicting change"
touch "$T/stamp"; sleep 1
before=$(tree_state "$T/linux")
BB_PATCHES=$T/patches expect_fail \
	"patch 2/2 '0002-block-two.patch' does not apply \(file: block/blk-core.c\)" \
	"$TOP/scripts/apply-series.sh" --kdir "$T/linux" --branch bb/test
after=$(tree_state "$T/linux")
[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); fail "tree changed"; }
echo "ok: tree, refs and worktrees unchanged"
