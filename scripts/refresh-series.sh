#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The reverse of apply-series.sh, for developers: after committing work on a
# branch of a kernel tree that starts at the base, regenerate patches/ from
# it.  Files a commit adds are copied back to their kernel path here and
# claimed in patches/series; patches/*.patch keep only the changes to files
# that existed before (plus MAINTAINERS, except the MAINTAINERS.fragment entry).
#
# usage: refresh-series.sh [--tree DIR] [--base REF] [BRANCH]
#   defaults: the cached base tree, block-batch-base, its current HEAD

set -u
. "$(dirname "$0")/lib.sh"

tree= base=block-batch-base
while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=${2:?}; shift 2 ;;
	--base) base=${2:?}; shift 2 ;;
	-*) echo "usage: $0 [--tree DIR] [--base REF] [BRANCH]" >&2; exit 2 ;;
	*) break ;;
	esac
done
need_tools git
tree=${tree:-$("$BB_TOP/scripts/fetch-base.sh")} || exit 1
tip=${1:-HEAD}
pdir=$BB_TOP/patches
mapfile -t commits < <(git -C "$tree" rev-list --reverse "$base..$tip")
[ ${#commits[@]} -gt 0 ] || die "no commits in $base..$tip of $tree"

# strip_diffs PATCH FILE... -- drop the diffs of FILEs from PATCH
strip_diffs() {
	local p=$1

	shift
	[ $# -gt 0 ] || return 0
	awk -v files="$*" '
	BEGIN { n = split(files, f, " "); for (i = 1; i <= n; i++) drop["a/" f[i]] = 1 }
	/^diff --git / { skip = ($3 in drop) }
	/^-- $/ { skip = 0 }
	!skip
	' "$p" > "$p.new" && mv "$p.new" "$p"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
	echo "# The block-batch series, in order: PATCH-FILE [NEW FILES IT ADDS]..."
	echo "# New files live at their kernel path in this repository; see README.md."
} > "$tmp/series"
n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	claims=() excl=()
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		mkdir -p "$BB_TOP/$(dirname "$f")"
		git -C "$tree" show "$c:$f" > "$BB_TOP/$f"
		[ -x "$tree/$f" ] && chmod +x "$BB_TOP/$f"
		excl+=("$f")
		# claim the top-most directory that this commit creates
		d=$(dirname "$f") top=$f
		while [ "$d" != . ] && ! git -C "$tree" cat-file -e "$c~1:$d" 2>/dev/null; do
			top=$d
			d=$(dirname "$d")
		done
		case " ${claims[*]} " in *" $top "*) ;; *) claims+=("$top") ;; esac
	done < <(git -C "$tree" diff --name-only --diff-filter=A "$c~1" "$c")
	# the MAINTAINERS entry of MAINTAINERS.fragment is folded in by apply
	title=$(head -n1 "$BB_TOP/MAINTAINERS.fragment" 2>/dev/null)
	if [ -n "$title" ] && git -C "$tree" show "$c" -- MAINTAINERS | grep -qxF "+$title"; then
		excl+=(MAINTAINERS)
		claims+=(MAINTAINERS.fragment)
	fi
	# Not a pathspec: with one, format-patch -1 picks the last commit that
	# touches the paths, and a commit whose diff is all new files vanishes.
	name=$(git -C "$tree" format-patch --zero-commit --no-stat -1 \
		--start-number "$n" -o "$tmp" "$c") || die "format-patch of $c failed"
	strip_diffs "$name" "${excl[@]}"
	echo "$(basename "$name") ${claims[*]}" | sed 's/ *$//' >> "$tmp/series"
done
rm -f "$pdir"/[0-9][0-9][0-9][0-9]-*.patch
mv "$tmp"/*.patch "$pdir/"
mv "$tmp/series" "$pdir/series"
info "refreshed ${#commits[@]} patch(es) in $pdir"
