#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the complete, git-am-able series (every new file folded into the
# patch that introduces it) with a cover letter, ready for git send-email.
#
# usage: export-series.sh [-o DIR] [-v N] [--rfc]
#   -o DIR   output directory (default: out/series); emptied first
#   -v N     reroll count (vN in the subject)
#   --rfc    subject prefix RFC PATCH
# The cover letter text is patches/cover-letter.txt: first line the subject,
# then a blank line and the body.  Prints the output directory.

set -u
. "$(dirname "$0")/lib.sh"

outdir=$BB_OUT/series reroll= prefix=PATCH
while [ $# -gt 0 ]; do
	case $1 in
	-o) outdir=${2:?}; shift 2 ;;
	-v) reroll=${2:?}; shift 2 ;;
	--rfc) prefix="RFC PATCH"; shift ;;
	*) echo "usage: $0 [-o DIR] [-v N] [--rfc]" >&2; exit 2 ;;
	esac
done
need_tools git
cover=${BB_PATCHES:-$BB_TOP/patches}/cover-letter.txt
[ -r "$cover" ] || die "no cover letter at $cover"

tree=$("$BB_TOP/scripts/apply-series.sh") || exit 1
n=$(git -C "$tree" rev-list --count block-batch-base..HEAD)
git -C "$tree" config branch.block-batch.description "$(cat "$cover")"
rm -rf "$outdir"
mkdir -p "$outdir" || die "cannot create $outdir"
git -C "$tree" format-patch -q -o "$(realpath "$outdir")" --cover-letter \
	--cover-from-description=subject --thread=shallow \
	--subject-prefix="$prefix" ${reroll:+-v "$reroll"} \
	block-batch-base..HEAD || die "git format-patch failed"
info "exported $n patch(es) plus cover letter to $outdir"
echo "$outdir"
