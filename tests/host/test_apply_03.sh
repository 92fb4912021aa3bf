#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bad KDIR input: a dirty tree is refused; so are a missing path, a non-git
# tree, a non-kernel tree and an existing branch.  Nothing is created.
. "$(dirname "$0")/lib.sh"

mk_fake_kernel "$T/linux"
mk_fake_series "$T/patches"
export BB_PATCHES=$T/patches
A=$TOP/scripts/apply-series.sh

echo "int d;" >> "$T/linux/block/blk-core.c"
touch "$T/stamp"; sleep 1
before=$(tree_state "$T/linux")
expect_fail "uncommitted changes" "$A" --kdir "$T/linux"
[ "$before" = "$(tree_state "$T/linux")" ] || fail "dirty tree was modified"
git -C "$T/linux" checkout -q -- .

expect_fail "does not exist" "$A" --kdir "$T/nonexistent"
mkdir -p "$T/plain/block" && touch "$T/plain/Makefile"
expect_fail "is not a git tree" "$A" --kdir "$T/plain"
mkdir -p "$T/notkernel" && git -C "$T/notkernel" init -q
expect_fail "is not a kernel source tree" "$A" --kdir "$T/notkernel"
git -C "$T/linux" branch bb/exists
expect_fail "already exists" "$A" --kdir "$T/linux" --branch bb/exists
expect_fail "not a commit" "$A" --kdir "$T/linux" --base no-such-ref
