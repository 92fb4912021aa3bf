#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every commit a record cites is on the history of HEAD: each id of a
# "project commit:" line and the commit that starts a "correction:" line,
# in every meta*.txt under results/, must be an ancestor of HEAD (git
# merge-base --is-ancestor).  A project commit that the history does not
# have (a commit rewritten before it reached main) passes only when its
# meta*.txt also has a correction naming an ancestor:
#     project commit: <the id the run wrote>
#     correction: <the commit on main that holds that work> (...): ...
# "project commit: unknown (...)" (a reconstructed meta.txt) is checked
# for the ids it names; a line that names no commit and does not say
# "unknown" fails.  Fails with FILE: ID: WHY for each; fails too when the
# checkout is shallow or has no history, as nothing could be checked.
#
# BB_RECORDS_DIR=DIR checks the meta*.txt under DIR instead of results/.
# Without it, the test first shows on records of its own that a cited
# commit the history lacks is caught, and that a correction naming an
# ancestor clears it.
RECORDS=${BB_RECORDS_DIR:-}
. "$(dirname "$0")/lib.sh"

cd "$TOP" || fail "cannot enter $TOP"
git rev-parse -q --verify 'HEAD^{commit}' > /dev/null 2>&1 ||
	fail "$TOP has no git history (not a git checkout, or no commit): the commits the records cite cannot be checked"
if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ] ||
   [ -f "$(git rev-parse --git-path shallow)" ]; then
	fail "$TOP is a shallow clone: the commits the records cite cannot be checked against HEAD's history; fetch it whole (git fetch --unshallow)"
fi

# why ID -- nothing if ID is a commit on HEAD's history, else why not
why() {
	local c

	c=$(git rev-parse -q --verify "$1^{commit}" 2>/dev/null) ||
		{ echo "no such commit in this repository (rewritten, or never published?)"; return; }
	git merge-base --is-ancestor "$c" HEAD ||
		echo "not an ancestor of HEAD ($(git log -1 --format='%h %s' "$c" | cut -c1-60))"
}

# ids TEXT -- the commit ids TEXT names: its first word if it is one, and
# every other word of 7 to 40 hex digits with a digit in it (so that an
# English word such as "defaced" is none)
ids() {
	local w first=1

	for w in $1; do
		w=${w#"("}; w=${w%%[),;:.]*}
		if [[ $w =~ ^[0-9a-f]{7,40}$ ]] && { [ $first -eq 1 ] || [[ $w =~ [0-9] ]]; }; then
			echo "$w"
		fi
		first=0
	done
}

# check DIR -- FILE: ID: WHY for each citation under DIR that fails; on
# stdout the counts "metas citations corrected"
check() {
	local dir=$1 f name line v id w fixed metas=0 cites=0 corrected=0

	while IFS= read -r f; do
		metas=$((metas + 1))
		name=${f#"$TOP/"}
		# the corrections first: they clear a project commit
		fixed=0
		while IFS= read -r v; do
			id=$(ids "$v" | head -n1)
			w=${v%% *}; w=${w#"("}; w=${w%%[),;:.]*}
			cites=$((cites + 1))
			if [ -z "$id" ] || [ "$id" != "$w" ]; then
				echo "$name: correction: does not start with a commit id: $v" >&2
			elif w=$(why "$id"); [ -n "$w" ]; then
				echo "$name: $id (correction): $w" >&2
			else
				fixed=1
			fi
		done < <(sed -n 's/^correction:[[:space:]]*//p' "$f")
		while IFS= read -r v; do
			line=$(ids "$v")
			if [ -z "$line" ]; then
				case $v in
				unknown*) ;;
				*) cites=$((cites + 1))
				   echo "$name: project commit: names no commit and does not say unknown: $v" >&2 ;;
				esac
				continue
			fi
			for id in $line; do
				cites=$((cites + 1))
				w=$(why "$id")
				[ -n "$w" ] || continue
				if [ $fixed -eq 1 ]; then
					corrected=$((corrected + 1))
				else
					echo "$name: $id: $w, and no correction: line names a commit on it" >&2
				fi
			done
		done < <(sed -n 's/^project commit:[[:space:]]*//p' "$f")
	done < <(find "$dir" -name 'meta*.txt' -type f | sort)
	echo "$metas $cites $corrected"
}

if [ -z "$RECORDS" ]; then
	# Records of the test's own: a cited commit the history lacks, the
	# same one with a correction naming HEAD, a correction the history
	# lacks, and a line that names nothing.
	gone=0123456789abcdef0123456789abcdef01234567
	[ -z "$(git rev-parse -q --verify "$gone^{commit}" 2>/dev/null)" ] ||
		fail "the made-up commit $gone exists here"
	head=$(git rev-parse HEAD)
	mkdir -p "$T/r/gone" "$T/r/fixed" "$T/r/badfix" "$T/r/noid"
	printf 'date: x\nproject commit: %s (with uncommitted changes)\n' "$gone" > "$T/r/gone/meta.txt"
	printf 'project commit: %s\ncorrection: %s (HEAD): holds that work\n' "$gone" "$head" > "$T/r/fixed/meta-a.txt"
	printf 'project commit: %s\ncorrection: %s: holds that work\n' "$head" "${gone:0:7}" > "$T/r/badfix/meta.txt"
	printf 'project commit: the tree of that day\n' > "$T/r/noid/meta.txt"
	read -r metas cites corrected < <(check "$T/r" 2> "$T/selferr")
	sed "s|^$T/r/|  expected: |" "$T/selferr"
	grep -q "^$T/r/gone/meta.txt: $gone: no such commit" "$T/selferr" ||
		fail "a cited commit that the history lacks was not caught"
	grep -q "^$T/r/badfix/meta.txt: ${gone:0:7} (correction): no such commit" "$T/selferr" ||
		fail "a correction naming a commit that the history lacks was not caught"
	grep -q "^$T/r/noid/meta.txt: project commit: names no commit" "$T/selferr" ||
		fail "a project commit line naming no commit was not caught"
	! grep -q "/fixed/" "$T/selferr" && [ "$corrected" -eq 1 ] ||
		fail "a correction naming HEAD did not clear the rewritten commit"
	[ "$(wc -l < "$T/selferr")" -eq 3 ] || fail "the test's own records: 3 failures expected"
	echo "ok: caught on the test's own records: a rewritten commit, a correction off the history, a line naming none; a correction naming HEAD clears one"
fi

dir=${RECORDS:-$TOP/results}
[ -d "$dir" ] || fail "no records directory $dir"
read -r metas cites corrected < <(check "$dir" 2> "$T/err")
[ "$metas" -gt 0 ] || fail "no meta*.txt under $dir"
if [ -s "$T/err" ]; then
	sed 's/^/  /' "$T/err"
	fail "$(wc -l < "$T/err") citation(s) of $cites in $metas meta*.txt files are not on HEAD's history (above, FILE: ID: WHY); add a correction: line naming the commit on main that holds the work"
fi
echo "ok: $metas meta*.txt files, $cites citations: every cited commit is an ancestor of HEAD ($corrected through a correction:)"
