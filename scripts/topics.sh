# SPDX-License-Identifier: GPL-2.0
#
# The postings the series is sent as (patches/topics), sourced by
# export-series.sh, send-series.sh and check-series.sh after lib.sh.
#
#   bb_topics_read            read and check patches/topics: sets TOPICS
#                             (names, in order), TOPIC_FIRST, TOPIC_LAST,
#                             TOPIC_ON, TOPIC_TESTS (associative, by name;
#                             TOPIC_TESTS empty where none are named); dies
#                             on a malformed file
#   bb_topic_chain NAME       the postings NAME applies on, from the base,
#                             then NAME itself
#   bb_topic_build TREE BASE NAME [TIP]
#                             NAME and the postings it applies on, as
#                             commits on BASE, made in TREE's object store
#                             from the commits of BASE..TIP (default HEAD:
#                             a caller that checks out other commits in
#                             TREE names the series' tip; reused where
#                             the parent is the same, else re-applied with
#                             git apply on a private index; no work tree is
#                             touched).  Prints "ON_TIP NAME_TIP"; dies
#                             naming the patch that does not apply.

bb_topics_file() { echo "${BB_PATCHES:-$BB_TOP/patches}/topics"; }

bb_topics_read() {
	local f name range on tests extra t n next=1 line=0
	f=$(bb_topics_file)
	[ -r "$f" ] || die "no $f"
	n=$(bb_series_count)
	TOPICS=()
	declare -gA TOPIC_FIRST=() TOPIC_LAST=() TOPIC_ON=() TOPIC_TESTS=()
	while read -r name range on tests extra; do
		line=$((line + 1))
		case $name in ''|'#'*) continue ;; esac
		[[ $name =~ ^[a-z][a-z0-9-]*$ ]] || die "$f:$line: bad posting name '$name'"
		[ -z "${TOPIC_FIRST[$name]:-}" ] || die "$f:$line: '$name' listed twice"
		[[ $range =~ ^([0-9]+)(-([0-9]+))?$ ]] || die "$f:$line: bad patch range '$range'"
		TOPIC_FIRST[$name]=${BASH_REMATCH[1]}
		TOPIC_LAST[$name]=${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}
		[ "${TOPIC_FIRST[$name]}" -eq "$next" ] ||
			die "$f:$line: '$name' starts at patch ${TOPIC_FIRST[$name]}, expected $next"
		[ "${TOPIC_LAST[$name]}" -ge "${TOPIC_FIRST[$name]}" ] || die "$f:$line: empty range '$range'"
		next=$((TOPIC_LAST[$name] + 1))
		[ "$on" = - ] || [ -n "${TOPIC_FIRST[$on]:-}" ] ||
			die "$f:$line: '$name' applies on '$on', which is not listed above it"
		TOPIC_ON[$name]=$on
		[ -z "$extra" ] || die "$f:$line: more than four columns"
		for t in ${tests//,/ }; do
			[[ $t =~ ^(test_[a-z]+_[0-9]{2}\.sh|ublk:[a-z]+(_[0-9]{2})?)$ ]] ||
				die "$f:$line: bad test '$t' (test_GROUP_NN.sh or ublk:GROUP[_NN])"
		done
		TOPIC_TESTS[$name]=$tests
		TOPICS+=("$name")
	done < "$f"
	[ "$next" -eq $((n + 1)) ] ||
		die "$f: the postings cover patches 1-$((next - 1)), the series has $n"
}

bb_topic_chain() {
	local t=$1 chain=()

	while [ "$t" != - ]; do
		chain=("$t" "${chain[@]}")
		t=${TOPIC_ON[$t]}
	done
	echo "${chain[@]}"
}

bb_topic_build() {
	local tree=$1 base=$2 name=$3 series_tip=${4:-HEAD} t k c tip on_tip tr idx
	local -a all

	mapfile -t all < <(git -C "$tree" rev-list --reverse "$base..$series_tip")
	tip=$(git -C "$tree" rev-parse "$base^{commit}") || die "no base $base in $tree"
	on_tip=$tip
	idx=$(mktemp)
	for t in $(bb_topic_chain "$name"); do
		[ "$t" != "$name" ] || on_tip=$tip
		for k in $(seq "${TOPIC_FIRST[$t]}" "${TOPIC_LAST[$t]}"); do
			c=${all[k - 1]:-}
			[ -n "$c" ] || { rm -f "$idx"; die "patch $k of posting '$t' is not in $tree"; }
			if [ "$(git -C "$tree" rev-parse "$c^")" = "$tip" ]; then
				tip=$c
				continue
			fi
			GIT_INDEX_FILE=$idx git -C "$tree" read-tree "$tip" &&
				git -C "$tree" diff --binary "$c^" "$c" |
				GIT_INDEX_FILE=$idx git -C "$tree" apply --cached 2>/dev/null &&
				tr=$(GIT_INDEX_FILE=$idx git -C "$tree" write-tree) ||
				{ rm -f "$idx"; die "posting '$name': patch $k ($(git -C "$tree" log -1 --format=%s "$c")) does not apply without the patches before it that are not in '$t' or what it applies on"; }
			tip=$(git -C "$tree" log -1 --format=%B "$c" |
				GIT_AUTHOR_NAME=$(git -C "$tree" log -1 --format=%an "$c") \
				GIT_AUTHOR_EMAIL=$(git -C "$tree" log -1 --format=%ae "$c") \
				GIT_AUTHOR_DATE=$(git -C "$tree" log -1 --format=%aD "$c") \
				GIT_COMMITTER_NAME=$(git -C "$tree" log -1 --format=%cn "$c") \
				GIT_COMMITTER_EMAIL=$(git -C "$tree" log -1 --format=%ce "$c") \
				GIT_COMMITTER_DATE=$(git -C "$tree" log -1 --format=%cD "$c") \
				git -C "$tree" commit-tree "$tr" -p "$tip") || { rm -f "$idx"; die "commit-tree failed"; }
		done
	done
	rm -f "$idx"
	echo "$on_tip $tip"
}
