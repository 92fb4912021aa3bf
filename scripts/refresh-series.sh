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
		excl+=(":(exclude)$f")
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
		excl+=(":(exclude)MAINTAINERS")
		claims+=(MAINTAINERS.fragment)
	fi
	name=$(git -C "$tree" format-patch --zero-commit -1 --start-number "$n" -o "$tmp" "$c" -- . "${excl[@]}")
	echo "$(basename "$name") ${claims[*]}" | sed 's/ *$//' >> "$tmp/series"
done
rm -f "$pdir"/[0-9][0-9][0-9][0-9]-*.patch
mv "$tmp"/*.patch "$pdir/"
mv "$tmp/series" "$pdir/series"
info "refreshed ${#commits[@]} patch(es) in $pdir"
