#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the series as its postings (export-series.sh: your identity,
# base-commit, one cover letter per posting) and hand each posting to git
# send-email as a thread of its own.  Nothing is sent unless --send is
# given.
#
# usage: send-series.sh [--send | --mbox DIR] [--topic NAME] [-v N] [--rfc]
#                       [--kdir DIR [--base REF]] [--blktests DIR]
#                       [--to ADDR]... [--cc ADDR]...
#   (default)     git send-email --dry-run: prints what would be sent
#   --mbox DIR    deliver each posting into the local mbox DIR/K-NAME.mbox
#                 instead of mail (appended; git am applies it back),
#                 nothing leaves
#   --send        really send
#   --topic NAME  only the posting NAME (patches/topics)
#   -v, --rfc, --kdir, --base   as for export-series.sh
#   --blktests DIR  the blktests posting instead (export-series.sh
#                 --blktests DIR), to the addresses that the checkout's
#                 CONTRIBUTING.md names for patches (linux-block and the
#                 blktests maintainer)
#   --to, --cc    more recipients, for every posting
#
# Recipients come from scripts/get_maintainer.pl of the patched tree, over
# each posting's own patches, so that every recipient of a posting gets
# all of it and its cover letter: maintainers and
# linux-block@vger.kernel.org in To:, reviewers and the other lists in
# Cc:.  The sched-lock posting reaches the memory-model maintainers too
# (their entry covers Documentation/litmus-tests/), the ublk posting the
# ublk maintainer.

set -u
. "$(dirname "$0")/lib.sh"

usage() { bb_help "$0" usage; }
mode=dry mbox= exp_args=() to=() cc=() btdir=
while [ $# -gt 0 ]; do
	case $1 in
	--send) mode=send; shift ;;
	--mbox) mode=mbox mbox=${2:?--mbox needs a directory}; shift 2 ;;
	--topic) exp_args+=(--topic "${2:?--topic needs a posting name}"); shift 2 ;;
	-v) exp_args+=(-v "${2:?-v needs a number}"); shift 2 ;;
	--rfc) exp_args+=(--rfc); shift ;;
	--kdir|--base) exp_args+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
	--blktests) btdir=${2:?--blktests needs a blktests checkout}
		exp_args+=(--blktests "$btdir"); shift 2 ;;
	--to) to+=("${2:?--to needs an address}"); shift 2 ;;
	--cc) cc+=("${2:?--cc needs an address}"); shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
need_tools git perl
[ -x "$(git --exec-path)/git-send-email" ] ||
	die "git send-email is not installed (Debian: apt-get install git-email)"
if [ "$mode" = mbox ]; then
	[ -d "$mbox" ] || die "no directory $mbox for the mboxes"
	mbox=$(realpath "$mbox")
fi

if [ -n "$btdir" ]; then
	# blktests has no MAINTAINERS: its CONTRIBUTING.md names where
	# patches go, in the paragraph that says so
	bto=($(awk '/^$/ { if (p) exit; next } /sending patches to/ { p = 1 } p' \
		"$btdir/CONTRIBUTING.md" 2>/dev/null | grep -o '<[^<>@ ]*@[^<> ]*>' | tr -d '<>'))
	[ ${#bto[@]} -gt 0 ] ||
		die "--blktests $btdir: its CONTRIBUTING.md names no address for patches"
fi
expdir=$BB_OUT/series
[ -z "$btdir" ] || expdir=$BB_OUT/blktests-posting
dir=$("$BB_TOP/scripts/export-series.sh" -o "$expdir" "${exp_args[@]}") || exit 1
# get_maintainer.pl runs in the cached base with the series applied (also
# with --kdir): its MAINTAINERS has the new entry
[ -n "$btdir" ] || tree=$("$BB_TOP/scripts/apply-series.sh") || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$mode" = mbox ]; then
	# a sendmail stand-in: the message on stdin goes into the mbox named
	# by BB_MBOX
	cat > "$tmp/to-mbox" <<'EOF2'
#!/bin/sh
{ echo "From block-batch $(LC_ALL=C date -u '+%a %b %e %T %Y')"; sed 's/^\(>*From \)/>\1/'; echo; } >> "$BB_MBOX"
EOF2
	chmod +x "$tmp/to-mbox"
fi

for d in "$dir"/*/; do
	d=${d%/}
	post=$(basename "$d")
	from=$(sed -n 's/^From: //p' "$d"/0001-*.patch | head -n1)
	[ -n "$from" ] || die "no From: in $d"
	if [ -n "$btdir" ]; then
		printf '%s (maintainer:blktests)\n' "${bto[@]}" > "$tmp/gm"
	else
		(cd "$tree" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
			--rolestats "$d"/0*-*.patch 2>/dev/null) \
			> "$tmp/gm" 2>/dev/null || die "scripts/get_maintainer.pl failed in $tree for $post"
	fi
	# "Name <addr> (maintainer:ENTRY,...)" or "list@... (open list:...)"
	# The new entry's M: is the placeholder in that tree: that is the sender.
	pto=("${to[@]}") pcc=("${cc[@]}")
	while IFS= read -r line; do
		addr=${line%% (*}
		case $line in
		*block-batch@example.org*) continue ;;
		*"(maintainer:"*|*linux-block@vger.kernel.org*) pto+=("$addr") ;;
		*) pcc+=("$addr") ;;
		esac
	done < "$tmp/gm"
	[ ${#pto[@]} -gt 0 ] || die "get_maintainer.pl named no maintainer for $post"

	sargs=(--from "$from" --no-chain-reply-to --suppress-cc=self --confirm=never)
	for a in "${pto[@]}"; do sargs+=(--to "$a"); done
	for a in "${pcc[@]}"; do sargs+=(--cc "$a"); done
	case $mode in
	dry) sargs+=(--dry-run) ;;
	mbox) sargs+=(--smtp-server "$tmp/to-mbox") ;;
	esac
	BB_MBOX=$mbox/$post.mbox git send-email "${sargs[@]}" "$d"/*.patch ||
		die "git send-email failed for $post"
	case $mode in
	dry) info "$post: dry run (--send to send, --mbox DIR for local mboxes); patches in $d" ;;
	mbox) info "$post: delivered into $mbox/$post.mbox (git am applies it)" ;;
	esac
done
