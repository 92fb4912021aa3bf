#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KDIR: the series goes onto a new branch in a new worktree; a new file is
# in the commit of the patch that adds it; the user's branch is not touched.
. "$(dirname "$0")/lib.sh"

mk_fake_kernel "$T/linux"
mk_fake_series "$T/patches"
touch "$T/stamp"; sleep 1
before=$(tree_state "$T/linux")
wt=$(BB_PATCHES=$T/patches \
	"$TOP/scripts/apply-series.sh" --kdir "$T/linux" --branch bb/test) ||
	fail "apply-series failed"
[ "$(git -C "$T/linux" symbolic-ref HEAD)" = refs/heads/main ] || fail "user's branch changed"
[ "$(git -C "$T/linux" rev-parse main)" = "$(echo "$before" | head -n1)" ] || fail "main moved"
[ -z "$(git -C "$T/linux" status --porcelain)" ] || fail "user's tree modified"
[ "$(git -C "$wt" rev-list --count main..bb/test)" -eq 2 ] || fail "expected 2 commits on bb/test"
git -C "$wt" show --stat bb/test~1 | grep -q 'tools/testing/selftests/fake/test_x_01.sh' ||
	fail "new file not in patch 1"
git -C "$wt" show --stat bb/test | grep -q 'tools/testing/selftests/fake' &&
	fail "new file leaked into patch 2"
grep -q 'int c = 2;' "$wt/block/blk-core.c" || fail "patch 2 not applied"
echo "ok: applied on bb/test in $wt, main untouched"
