#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series a reader takes: 'git am patches/0*.patch' on the base.
#  - every patch applies, in the order of patches/series, which is the order
#    of patches/0*.patch; a patch that does not apply is named;
#  - the result is the tree apply-series.sh gives;
#  - each file the series adds has its copy here, equal to its version in
#    the last patch that touches it (a copy that differs is named with that
#    patch), and every file here at a kernel path is one the series adds.
# Skips (4) when the base kernel is not cached and cannot be fetched.
# BB_AM_PATCHES=DIR takes the patches from DIR, BB_AM_COPIES=DIR the copies.
REAL_CACHE=${BB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/block-batch}
. "$(dirname "$0")/lib.sh"
export BB_CACHE=$REAL_CACHE BB_OUT=$T/out
pdir=${BB_AM_PATCHES:-$TOP/patches}
copies=${BB_AM_COPIES:-$TOP}

tree=$("$TOP/scripts/fetch-base.sh" 2> "$T/fetch.err") ||
	{ tail -n 3 "$T/fetch.err"; echo "SKIP: the base kernel is not cached and cannot be fetched"; exit 4; }

# patches/series and patches/0*.patch: the same patches in the same order
mapfile -t files < <(cd "$pdir" && ls 0*.patch)
mapfile -t listed < <(grep -v '^#' "$pdir/series" | grep .)
[ ${#files[@]} -gt 0 ] || fail "no patches in $pdir"
[ "${files[*]}" = "${listed[*]}" ] ||
	{ diff <(printf '%s\n' "${listed[@]}") <(printf '%s\n' "${files[@]}")
	  fail "patches/series does not list patches/0*.patch in their order"; }
echo "ok: patches/series lists the ${#files[@]} patches of patches/0*.patch in order"

# A worktree of the base with only the directories the series touches.
mapfile -t dirs < <(sed -n 's|^+++ b/||p; s|^--- a/||p' "$pdir"/0*.patch |
	xargs -n1 dirname | sort -u | grep -vx '\.')
git -C "$tree" worktree add -q --no-checkout --detach "$T/am" block-batch-base || fail "worktree"
trap 'git -C "$tree" worktree remove --force "$T/am" 2>/dev/null; git -C "$tree" worktree prune; rm -rf "$T"' EXIT
git -C "$T/am" sparse-checkout set "${dirs[@]}" || fail "sparse-checkout"
git -C "$T/am" checkout -q --detach block-batch-base || fail "checkout"

if ! (cd "$T/am" && git am -q "${files[@]/#/$pdir/}") > "$T/am.log" 2>&1; then
	n=$(git -C "$T/am" rev-list --count block-batch-base..HEAD)
	bad=$(sed -n 's/^error: patch failed: \([^:]*\):.*/\1/p;s/^error: \([^:]*\): does not exist in index/\1/p;s/^error: \([^:]*\): already exists in index/\1/p;s/^error: \([^:]*\): already exists in working directory/\1/p' "$T/am.log" | head -n1)
	sed 's/^/  /' "$T/am.log"
	git -C "$T/am" am --abort 2>/dev/null
	fail "git am: patch $((n + 1))/${#files[@]} ${files[n]} does not apply${bad:+ (file: $bad)}"
fi
[ "$(git -C "$T/am" rev-list --count block-batch-base..HEAD)" -eq ${#files[@]} ] ||
	fail "git am made $(git -C "$T/am" rev-list --count block-batch-base..HEAD) commits, not ${#files[@]}"
git -C "$T/am" diff --stat block-batch-base HEAD | tail -n1
echo "ok: git am applies all ${#files[@]} patches on block-batch-base"

# The same tree as apply-series.sh gives.
applied=$(BB_PATCHES=$pdir "$TOP/scripts/apply-series.sh" 2> "$T/apply.err") ||
	{ cat "$T/apply.err"; fail "apply-series.sh failed"; }
want=$(git -C "$applied" rev-parse 'HEAD^{tree}')
got=$(git -C "$T/am" rev-parse 'HEAD^{tree}')
[ "$want" = "$got" ] ||
	{ git -C "$T/am" diff --stat "$want" "$got"; fail "git am gives tree $got, apply-series.sh $want"; }
echo "ok: the same tree as apply-series.sh, $got"

# The copies here: the version of the last patch that touches each file.
mapfile -t commits < <(git -C "$T/am" rev-list --reverse block-batch-base..HEAD)
declare -A patch_of=()
for i in "${!commits[@]}"; do
	patch_of[${commits[i]}]=${files[i]}
done
nf=0
while IFS= read -r f; do
	nf=$((nf + 1))
	last=$(git -C "$T/am" rev-list -1 block-batch-base..HEAD -- "$f")
	[ -f "$copies/$f" ] ||
		fail "$f: added by the series, last changed by ${patch_of[$last]}, but has no copy here"
	git -C "$T/am" show "HEAD:$f" | cmp -s - "$copies/$f" || {
		git -C "$T/am" show "HEAD:$f" | diff -u --label "$f (${patch_of[$last]})" \
			--label "$f (here)" - "$copies/$f" | head -n 20
		fail "$f differs from its version in ${patch_of[$last]}, the last patch that changes it (scripts/refresh-series.sh --copies folds an edit of the copy into it)"
	}
	mode=$(git -C "$T/am" ls-tree HEAD -- "$f" | cut -c1-6)
	[ "$mode" = 100755 ] && [ ! -x "$copies/$f" ] &&
		fail "$f is executable in ${patch_of[$last]}, not here"
	[ "$mode" = 100644 ] && [ -x "$copies/$f" ] &&
		fail "$f is executable here, not in ${patch_of[$last]}"
done < <(git -C "$T/am" diff --name-only --diff-filter=A block-batch-base HEAD)
[ $nf -gt 0 ] || fail "the series adds no file"
echo "ok: the copies of all $nf files the series adds equal the last patch that changes each"
for f in $(cd "$copies" && find tools/testing/selftests/block-batch block include drivers/block \
	    Documentation -type f ! -name '*~' 2>/dev/null); do
	git -C "$T/am" cat-file -e "HEAD:$f" 2>/dev/null ||
		fail "$f is at a kernel path here but in no patch"
	git -C "$T/am" diff --quiet block-batch-base HEAD -- "$f" &&
		fail "$f is here, but the series does not change it"
done
echo "ok: every file here at a kernel path is one the series adds"
# MAINTAINERS.fragment: the entry the selftests patch adds to MAINTAINERS, written by
# refresh-series.sh, not kept by hand
. "$TOP/scripts/lib.sh"
bb_maintainers_entry "$T/am" block-batch-base HEAD | diff -u --label "MAINTAINERS (the series)" \
	--label MAINTAINERS.fragment - "$copies/MAINTAINERS.fragment" ||
	fail "MAINTAINERS.fragment differs from the entry the series adds to MAINTAINERS (scripts/refresh-series.sh writes it)"
echo "ok: MAINTAINERS.fragment is the entry the series adds"
