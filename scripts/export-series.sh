#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the series as the postings it is sent as (patches/topics), each
# with its own cover letter, under your identity, ready for git send-email
# (patches/*.patch are kept under a placeholder identity).
#
# usage: export-series.sh [-o DIR] [-v N] [--rfc] [--topic NAME]
#                         [--kdir DIR [--base REF]] [--blktests DIR]
#   -o DIR        output directory (default: out/series); emptied first
#   -v N          reroll count (vN in the subject)
#   --rfc         subject prefix RFC PATCH
#   --topic NAME  only the posting NAME (default: all of them)
#   --kdir DIR    apply onto your kernel git tree (a new branch and worktree,
#                 see apply-series.sh) instead of the cached Debian base, so
#                 that base-commit: names an upstream commit
#   --base REF    with --kdir: the commit to apply onto (default: its HEAD)
#   --blktests DIR  instead of the kernel postings, the blktests posting:
#                 the cases of blktests/tests/block on top of the blktests
#                 checkout DIR (only read; it is cloned), one case a patch,
#                 with patches/cover/blktests.txt, "PATCH blktests", in
#                 DIR/blktests (-o default: out/blktests-posting)
#
# Each posting lands in DIR/K-NAME/ (K its place in patches/topics): a
# cover letter from patches/cover/NAME.txt (first line the subject, then
# a blank line and the body) and its patches, numbered 1/N to N/N.  The
# cover letter ends with base-commit:, and for a posting that applies on
# another one, the prerequisite-patch-id: of each patch it needs; its
# body names that posting in place of a line @PREREQUISITE@.  A
# posting that applies on the base alone (APPLIES ON "-") is built on the
# base without the patches before it; export stops, naming the patch,
# when it does not apply that way.
#
# The sender is you: From: and Signed-off-by: are your git identity
# (git config user.name and user.email; GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL
# override them), and so are the M: line of the new MAINTAINERS entry and
# the author line of each cover letter's shortlog.  The repository's
# placeholder identity never leaves: export stops when no identity is set,
# and checks the result for the placeholder's name and address.
#
# Prints the output directory.

set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/topics.sh"
. "$(dirname "$0")/blktests-posting.sh"

# The identity that the series is kept under in this repository.
BB_PLACEHOLDER_NAME="block-batch developers"
BB_PLACEHOLDER_EMAIL=block-batch@example.org
BB_PLACEHOLDER_IDENT="$BB_PLACEHOLDER_NAME <$BB_PLACEHOLDER_EMAIL>"

usage() { bb_help "$0" usage; }
outdir=$BB_OUT/series reroll= prefix=PATCH kdir= base_ref= topic= btdir=
while [ $# -gt 0 ]; do
	case $1 in
	-o) outdir=${2:?-o needs a directory}; shift 2 ;;
	-v) reroll=${2:?-v needs a number}; shift 2 ;;
	--rfc) prefix="RFC PATCH"; shift ;;
	--kdir) kdir=${2:?--kdir needs a directory}; shift 2 ;;
	--base) base_ref=${2:?--base needs a commit}; shift 2 ;;
	--topic) topic=${2:?--topic needs a posting name}; shift 2 ;;
	--blktests) btdir=${2:?--blktests needs a blktests checkout}; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ -z "$reroll" ] || [[ $reroll =~ ^[1-9][0-9]*$ ]] || die "-v needs a number, not '$reroll'"
[ -z "$base_ref" ] || [ -n "$kdir" ] || die "--base needs --kdir"
need_tools git sed grep awk fmt
covers=${BB_PATCHES:-$BB_TOP/patches}/cover
if [ -n "$btdir" ]; then
	[ -z "$kdir$topic" ] || die "--blktests goes without --kdir and --topic"
	[ -x "$btdir/check" ] && [ -d "$btdir/tests/block" ] && git -C "$btdir" rev-parse -q --verify HEAD > /dev/null ||
		die "--blktests $btdir: not a blktests git checkout"
	[ -r "$covers/blktests.txt" ] || die "no cover letter $covers/blktests.txt"
	[ "$outdir" != "$BB_OUT/series" ] || outdir=$BB_OUT/blktests-posting
fi
bb_topics_read
if [ -n "$topic" ]; then
	[ -n "${TOPIC_FIRST[$topic]:-}" ] || die "no posting '$topic' in $(bb_topics_file) (there are: ${TOPICS[*]})"
fi
for t in "${TOPICS[@]}"; do
	[ -r "$covers/$t.txt" ] || die "no cover letter $covers/$t.txt for posting '$t'"
done

name=${GIT_AUTHOR_NAME:-$(git -C "$BB_TOP" config user.name)}
email=${GIT_AUTHOR_EMAIL:-$(git -C "$BB_TOP" config user.email)}
[ -n "$name" ] && [ -n "$email" ] ||
	die "no git identity: set git config user.name and user.email (they become From: and Signed-off-by: of every patch)"
ident="$name <$email>"
[ "$email" != "$BB_PLACEHOLDER_EMAIL" ] ||
	die "your git identity is the repository's placeholder ($ident): set your own"
case $email in *@*.*) ;; *) die "git config user.email '$email' is not a mail address" ;; esac

if [ -n "$btdir" ]; then
	bb_blktests_posting "$btdir" "$outdir" "$name" "$email" "$prefix blktests" "$reroll" || exit 1
	echo "$outdir"
	exit 0
fi

if [ -n "$kdir" ]; then
	tree=$("$BB_TOP/scripts/apply-series.sh" --kdir "$kdir" ${base_ref:+--base "$base_ref"}) || exit 1
	n=$(bb_series_count)
	range=HEAD~$n..HEAD
else
	tree=$("$BB_TOP/scripts/apply-series.sh") || exit 1
	range=block-batch-base..HEAD
	warn "base-commit: will name the cached Debian base commit, which exists only here; use --kdir with a kernel git tree at the upstream base for one that b4 and others can find"
fi
n=$(git -C "$tree" rev-list --count "$range")
base=$(git -C "$tree" rev-parse "${range%..*}") || die "no base commit in $tree"

rm -rf "$outdir"
mkdir -p "$outdir" || die "cannot create $outdir"
outdir=$(realpath "$outdir")
k=0
for t in "${TOPICS[@]}"; do
	k=$((k + 1))
	[ -z "$topic" ] || [ "$t" = "$topic" ] || continue
	tips=$(bb_topic_build "$tree" "$base" "$t") || { rm -rf "$outdir"; exit 1; }
	read -r on tip <<<"$tips"
	if [ "${TOPIC_ON[$t]}" = - ]; then
		pre=
	else
		pre=$(echo "This series applies on top of \"$(head -n1 "$covers/${TOPIC_ON[$t]}.txt")\", posted separately." | fmt -w 72)
	fi
	branch=block-batch-export-$t
	git -C "$tree" branch -f "$branch" "$tip" || die "cannot make branch $branch in $tree"
	git -C "$tree" config branch."$branch".description \
		"$(PRE=$pre awk '$0 == "@PREREQUISITE@" { if (ENVIRON["PRE"] != "") print ENVIRON["PRE"]; next } { print }' "$covers/$t.txt")"
	GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_COMMITTER_NAME=$name \
		GIT_COMMITTER_EMAIL=$email git -C "$tree" format-patch -q -o "$outdir/$k-$t" \
		--cover-letter --cover-from-description=subject --thread=shallow \
		--base="$base" --subject-prefix="$prefix" ${reroll:+-v "$reroll"} \
		"$on..$branch"
	rc=$?
	git -C "$tree" branch -q -D "$branch"
	[ $rc -eq 0 ] || { rm -rf "$outdir"; die "git format-patch failed for posting '$t'"; }
done

# The sender's identity replaces the placeholder: From:, Signed-off-by:,
# the new MAINTAINERS entry and the cover letter's shortlog, where
# format-patch names the commits' author ("NAME (N):").  sed's replacement
# needs & / \ escaped.
rep=$(printf '%s' "$ident" | sed 's/[&/\]/\\&/g')
ph=$(printf '%s' "$BB_PLACEHOLDER_IDENT" | sed 's/[].[*^$/\\]/\\&/g')
repname=$(printf '%s' "$name" | sed 's/[&/\]/\\&/g')
phname=$(printf '%s' "$BB_PLACEHOLDER_NAME" | sed 's/[].[*^$/\\]/\\&/g')
for p in "$outdir"/*/*.patch; do
	sed -i -e "s/^From: $ph\$/From: $rep/" \
		-e "s/^Signed-off-by: $ph\$/Signed-off-by: $rep/" \
		-e "s/^+M:\t$ph\$/+M:\t$rep/" \
		-e "s/^$phname (\([0-9]*\)):\$/$repname (\1):/" "$p"
done
if grep -l -F -e "$BB_PLACEHOLDER_EMAIL" -e "$BB_PLACEHOLDER_NAME" "$outdir"/*/*.patch >&2; then
	rm -rf "$outdir"
	die "the placeholder identity is still in the files above; nothing exported"
fi
info "exported ${topic:-${#TOPICS[@]} postings} ($(ls "$outdir"/*/0*.patch | grep -vc 0000-cover-letter) patches) to $outdir, from $ident, base-commit $base"
echo "$outdir"
