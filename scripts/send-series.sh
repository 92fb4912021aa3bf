#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the series (export-series.sh: your identity, base-commit) and hand
# it to git send-email.  Nothing is sent unless --send is given.
#
# usage: send-series.sh [--send | --mbox FILE] [-v N] [--rfc]
#                       [--kdir DIR [--base REF]] [--to ADDR]... [--cc ADDR]...
#   (default)    git send-email --dry-run: prints what would be sent
#   --mbox FILE  deliver into the local mbox FILE instead of mail (appended;
#                git am FILE applies the series back), nothing leaves
#   --send       really send
#   -v, --rfc, --kdir, --base   as for export-series.sh
#   --to, --cc   more recipients
#
# Recipients come from scripts/get_maintainer.pl of the patched tree, over
# the whole series, so that every recipient gets every patch and the cover
# letter: maintainers and linux-block@vger.kernel.org in To:, reviewers and
# the other lists in Cc:.  That includes the memory-model maintainers,
# whose entry covers Documentation/litmus-tests/.

set -u
. "$(dirname "$0")/lib.sh"

usage() { bb_help "$0" usage; }
mode=dry mbox= exp_args=() to=() cc=()
while [ $# -gt 0 ]; do
	case $1 in
	--send) mode=send; shift ;;
	--mbox) mode=mbox mbox=${2:?--mbox needs a file}; shift 2 ;;
	-v) exp_args+=(-v "${2:?-v needs a number}"); shift 2 ;;
	--rfc) exp_args+=(--rfc); shift ;;
	--kdir|--base) exp_args+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
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
	[ -d "$(dirname "$mbox")" ] || die "no directory for the mbox $mbox"
	[ ! -e "$mbox" ] || [ -f "$mbox" ] || die "$mbox exists and is not a file"
	mbox=$(realpath "$mbox")
fi

dir=$("$BB_TOP/scripts/export-series.sh" -o "$BB_OUT/series" "${exp_args[@]}") || exit 1
from=$(sed -n 's/^From: //p' "$dir"/0001-*.patch | head -n1)
[ -n "$from" ] || die "no From: in the exported series"
# get_maintainer.pl runs in the cached base with the series applied (also
# with --kdir): its MAINTAINERS has the new entry
tree=$("$BB_TOP/scripts/apply-series.sh") || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tree" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
	--rolestats "$dir"/0*-*.patch) > "$tmp/gm" 2>/dev/null ||
	die "scripts/get_maintainer.pl failed in $tree"
# "Name <addr> (maintainer:ENTRY,...)" or "list@... (open list:...)"
# The new entry's M: is the placeholder in that tree: that is the sender.
while IFS= read -r line; do
	addr=${line%% (*}
	case $line in
	*block-batch@example.org*) continue ;;
	*"(maintainer:"*|*linux-block@vger.kernel.org*) to+=("$addr") ;;
	*) cc+=("$addr") ;;
	esac
done < "$tmp/gm"
[ ${#to[@]} -gt 0 ] || die "get_maintainer.pl named no maintainer"

sargs=(--from "$from" --no-chain-reply-to --suppress-cc=self --confirm=never)
for a in "${to[@]}"; do sargs+=(--to "$a"); done
for a in "${cc[@]}"; do sargs+=(--cc "$a"); done
case $mode in
dry)
	info "dry run (--send to send, --mbox FILE for a local mbox); patches in $dir"
	sargs+=(--dry-run) ;;
mbox)
	# a sendmail stand-in: the message on stdin goes into the mbox
	cat > "$tmp/to-mbox" <<EOF
#!/bin/sh
{ echo "From block-batch \$(LC_ALL=C date -u '+%a %b %e %T %Y')"; sed 's/^\(>*From \)/>\1/'; echo; } >> '$mbox'
EOF
	chmod +x "$tmp/to-mbox"
	sargs+=(--smtp-server "$tmp/to-mbox") ;;
esac
git send-email "${sargs[@]}" "$dir"/*.patch || die "git send-email failed"
[ "$mode" != mbox ] || info "series delivered into $mbox (git am $mbox applies it)"
