#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the series and hand it to git send-email.  A dry run unless --send.
# To linux-block, Cc from scripts/get_maintainer.pl of the base tree.  Your own
# Signed-off-by (git config user.name/user.email) is added to every patch:
# you are the one sending it.
#
# usage: send-series.sh [--send] [-v N] [--rfc] [--to ADDR]... [--cc ADDR]...

set -u
. "$(dirname "$0")/lib.sh"

send=0 exp_args=() to=(linux-block@vger.kernel.org) cc=()
while [ $# -gt 0 ]; do
	case $1 in
	--send) send=1; shift ;;
	-v) exp_args+=(-v "${2:?}"); shift 2 ;;
	--rfc) exp_args+=(--rfc); shift ;;
	--to) to+=("${2:?}"); shift 2 ;;
	--cc) cc+=("${2:?}"); shift 2 ;;
	*) echo "usage: $0 [--send] [-v N] [--rfc] [--to ADDR]... [--cc ADDR]..." >&2; exit 2 ;;
	esac
done
need_tools git perl
git send-email -h >/dev/null 2>&1
[ $? -ne 1 ] || die "git send-email is not installed (Debian: apt-get install git-email)"
name=$(git config user.name) && email=$(git config user.email) ||
	die "set git config user.name and user.email first: they sign off the patches"

dir=$("$BB_TOP/scripts/export-series.sh" "${exp_args[@]}") || exit 1
tree=$("$BB_TOP/scripts/fetch-base.sh") || exit 1
sob="Signed-off-by: $name <$email>"
for p in "$dir"/*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	grep -qxF "$sob" "$p" || sed -i "0,/^---$/s//$(printf '%s' "$sob" | sed 's/[&/\]/\\&/g')\n---/" "$p"
done
args=(--no-chain-reply-to --suppress-cc=self)
for a in "${to[@]}"; do args+=(--to "$a"); done
for a in "${cc[@]}"; do args+=(--cc "$a"); done
args+=(--cc-cmd "cd '$tree' && perl scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback --norolestats")
if [ $send -eq 0 ]; then
	info "dry run (add --send to really send); patches in $dir"
	args+=(--dry-run)
fi
git send-email "${args[@]}" "$dir"/*.patch
