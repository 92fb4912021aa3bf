#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot each posting of the series on its own and run its tests.  A posting
# (patches/topics) is built as linux-block would apply it: on the base
# kernel with the postings it applies on and nothing else, as
# scripts/export-series.sh exports it.  Each is checked out in turn in one
# worktree of the applied series, $BB_CACHE/posting-trees/linux (its build
# directory next to it, so each posting rebuilds only what differs from the
# one before), and scripts/test.sh --tree builds it, boots it and runs the
# tests patches/topics names for it (TESTS column), without the base
# kernel.  A posting whose tree has no block-batch kselftests (one that
# applies on the base alone, or the fixes) gets the repository's copy of
# them, so that its tests can run at all.
#
# usage: boot-postings.sh [--posting NAME]... [-- TEST.SH-OPTIONS]
#   --posting NAME  only this posting (repeatable); default: every posting
#                   that names tests
#   -- OPTIONS      passed on to scripts/test.sh (e.g. --smp 4)
# Output: out/postings/NAME/ (test.sh's output for each posting) and one
# line per posting: "ok NAME" or "not ok NAME (why)".  Exit status 0 only
# if every posting passed.  Part of scripts/test.sh --full.

set -u
. "$(dirname "$0")/lib.sh"
. "$BB_TOP/scripts/topics.sh"

sel=() pass=()
while [ $# -gt 0 ]; do
	case $1 in
	--posting) [ $# -ge 2 ] || die "--posting needs a name"; sel+=("$2"); shift 2 ;;
	--) shift; pass=("$@"); break ;;
	-h|--help) bb_help "$0"; exit 0 ;;
	*) bb_help "$0" usage >&2; die "unknown option '$1'" ;;
	esac
done
need_tools git flock
bb_topics_read
for t in "${sel[@]}"; do
	[ -n "${TOPIC_FIRST[$t]:-}" ] ||
		die "no posting '$t' in $(bb_topics_file) (there are: ${TOPICS[*]})"
	[ -n "${TOPIC_TESTS[$t]}" ] || die "posting '$t' names no tests in $(bb_topics_file)"
done
if [ ${#sel[@]} -eq 0 ]; then
	for t in "${TOPICS[@]}"; do
		[ -z "${TOPIC_TESTS[$t]}" ] || sel+=("$t")
	done
	[ ${#sel[@]} -gt 0 ] || die "no posting in $(bb_topics_file) names tests"
fi

mkdir -p "$BB_CACHE/posting-trees" "$BB_OUT/postings" ||
	die "cannot create $BB_CACHE/posting-trees or $BB_OUT/postings"
exec 9> "$BB_CACHE/posting-trees/lock"
flock -n 9 || die "another scripts/boot-postings.sh is using $BB_CACHE/posting-trees"

tree=$("$BB_TOP/scripts/apply-series.sh" 9>&-) || die "cannot apply the series"
ptree=$BB_CACHE/posting-trees/linux
bb_cache_worktree "$tree" "$ptree" block-batch-base posting

ks=tools/testing/selftests/block-batch
rc=0
for t in "${sel[@]}"; do
	tips=$(bb_topic_build "$tree" block-batch-base "$t") || {
		echo "not ok $t (does not apply on what it names)"; rc=1; continue; }
	tip=${tips#* }
	git -C "$ptree" checkout -q -f --detach "$tip" && git -C "$ptree" clean -q -f -d -x ||
		die "cannot check out posting '$t' ($tip) in $ptree"
	own=yes
	if [ ! -d "$ptree/$ks" ]; then
		own=no
		mkdir -p "$ptree/$ks" && cp -p "$BB_TOP/$ks"/* "$ptree/$ks/" ||
			die "cannot copy the kselftests into $ptree"
	fi
	kt= ug=
	for x in ${TOPIC_TESTS[$t]//,/ }; do
		case $x in
		ublk:*) ug+=${ug:+,}${x#ublk:} ;;
		*) [ -f "$ptree/$ks/$x" ] || die "posting '$t': its tree has no $ks/$x"
		   kt+=${kt:+,}$x ;;
		esac
	done
	[ -n "$kt" ] || die "posting '$t' names no block-batch kselftest (test.sh needs one)"
	out=$BB_OUT/postings/$t
	rm -rf "$out" && mkdir -p "$out"
	info "posting '$t': $(git -C "$ptree" log -1 --format='%h %s') (kselftests: $([ $own = yes ] && echo "its own" || echo "the repository's")); $kt${ug:+, ublk $ug}"
	BB_OUT=$out "$BB_TOP/scripts/test.sh" --tree "$ptree" --tests "$kt" \
		--ublk "${ug:-none}" --blktests none --no-base "${pass[@]}" \
		> "$out/tap.txt" 2>&1
	r=$?
	summary=$(tail -n 1 "$out/tap.txt")
	if [ $r -eq 0 ]; then
		echo "ok $t ($summary)"
	else
		echo "not ok $t ($summary; $out/tap.txt)"
		rc=1
	fi
done
git -C "$ptree" checkout -q -f --detach block-batch-base && git -C "$ptree" clean -q -f -d -x ||
	warn "could not reset $ptree"
exit $rc
