#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The project speaks only of itself: no tracked file (git ls-files) uses
# the vocabulary of how the work was planned (numbered work periods and
# tickets, numbered design references, machine loans) instead of dates,
# commits and the author and title of a posting, and none names a design
# reference by its file name.  Fails with FILE:LINE: TEXT for each hit.
#
# The words are assembled below from pieces, so that this file does not
# match itself and needs no exclusion.
. "$(dirname "$0")/lib.sh"

w() { local IFS=; echo "$*"; }
pats=(
	"\\b$(w ses sions?) [0-9]+"
	"\\b(this|that|previous|next|same|earlier|later) $(w ses sion)\\b"
	"\\b$(w se eds?)\\b"
	"\\b$(w iss ues?) [0-9]+"
	"\\b$(w mis sion)\\b"
	"\\b$(w le nt)\\b"
	"\\bnot $(w dra wn)\\b"
	"\\b$(w as ked)\\b"
	"\\bmy $(w ow n)\\b"
	"\\bwork $(w ite ms?)\\b"
	"\\b[0-9]{3}_[0-9a-f]{16}\\.$(w t xt)\\b"
)
re=$(IFS='|'; echo "${pats[*]}")

cd "$TOP" || fail "cannot enter $TOP"
git rev-parse --git-dir > /dev/null 2>&1 || { echo "SKIP: $TOP is not a git checkout"; exit 4; }
# git grep: the tracked files, as they are in the working tree
git grep -nIiE -e "$re" > "$T/hits"
[ $? -le 1 ] || fail "git grep failed"
if [ -s "$T/hits" ]; then
	cut -c1-200 "$T/hits" | sed 's/^/  /'
	fail "$(wc -l < "$T/hits") line(s) in tracked files use the planning vocabulary (above, FILE:LINE: TEXT); say it with dates, commits, and postings by author and title"
fi
echo "ok: $(git ls-files | wc -l) tracked files, none uses the planning vocabulary"
