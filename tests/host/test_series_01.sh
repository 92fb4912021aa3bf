#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The real series: the exported patches are checkpatch --strict clean, and
# applying exactly the exported files onto the base gives the same tree as
# apply-series.sh (so the exported series is complete on its own), except
# for the M: line of the new MAINTAINERS entry, which names the sender.
REAL_CACHE=${BB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/block-batch}
. "$(dirname "$0")/lib.sh"
export BB_CACHE=$REAL_CACHE BB_OUT=$T/out

"$TOP/scripts/check-series.sh" checkpatch || fail "checkpatch is not clean"
tree=$("$TOP/scripts/fetch-base.sh") || fail "no base tree"
want=$(git -C "$tree" rev-parse 'block-batch^{tree}')
export GIT_INDEX_FILE=$T/index
git -C "$tree" read-tree block-batch-base || fail "read-tree"
for p in "$BB_OUT"/check-series/*/0*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	git -C "$tree" apply --cached "$p" || fail "exported $(basename "$p") does not apply"
done
got=$(git -C "$tree" write-tree)
diff=$(git -C "$tree" diff "$want" "$got" | grep '^[-+][^-+]')
[ "$diff" = "$(printf -- '-M:\tblock-batch developers <block-batch@example.org>\n+M:\tBlock Batch Check <check@block-batch.invalid>')" ] ||
	{ git -C "$tree" diff --stat "$want" "$got"; echo "$diff"; fail "exported series differs from the applied one"; }
echo "ok: exported series reproduces tree $want, with the sender in MAINTAINERS"
# every file here at a kernel path is in the series
for f in $(cd "$TOP" && find tools/testing/selftests/block-batch block include drivers/block \
	    Documentation/block Documentation/litmus-tests -type f 2>/dev/null); do
	git -C "$tree" cat-file -e "block-batch:$f" 2>/dev/null ||
		fail "$f is at a kernel path here but in no patch (add it in a patch: docs/developing.md)"
done
echo "ok: every new file is in the series"
