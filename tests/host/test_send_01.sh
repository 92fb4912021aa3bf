#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Submission tooling on the real series, posting by posting (patches/topics):
#  - export stops with a clear message without a git identity, or with the
#    repository's placeholder as identity, or for an unknown posting, and
#    exports nothing;
#  - send-series.sh --mbox delivers each posting into a local mbox of its
#    own: its patches and a cover letter, the sender's From:,
#    Signed-off-by: and MAINTAINERS entry, base-commit:, one
#    prerequisite-patch-id: per patch of the postings it applies on, and
#    To/Cc from get_maintainer.pl over its own patches (block layer and
#    memory model for sched-lock, the ublk maintainer for ublk,
#    linux-nvme and not linux-block for nvme-fcloop's fix);
#  - git am of the mboxes onto the base, each on the ones it applies on,
#    gives the applied series' tree, with the sender in MAINTAINERS in
#    place of the placeholder; a posting that applies on the base alone
#    applies there alone; b4 am, where b4 is installed, gives the same;
#  - every posting names the tests it is booted with (boot-postings.sh),
#    and they exist, or, for a driver outside the block layer, its cover
#    letter names the upstream blktests case that shows the bug; boot-postings.sh refuses an unknown posting and a
#    malformed TESTS column before it does anything.
REAL_CACHE=${BB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/block-batch}
. "$(dirname "$0")/lib.sh"
export BB_CACHE=$REAL_CACHE BB_OUT=$T/bbout

[ -x "$(git --exec-path)/git-send-email" ] || { echo "SKIP: git send-email is not installed (git-email)"; exit 4; }

# No identity at all: no environment, empty global config, no system config.
if [ -z "$(git -C "$TOP" config --local user.name)" ]; then
	(unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL
	 export HOME=$T/home GIT_CONFIG_NOSYSTEM=1 XDG_CONFIG_HOME=$T/home
	 mkdir -p "$HOME"
	 expect_fail "no git identity: set git config user.name and user.email" \
		"$TOP/scripts/export-series.sh" -o "$T/noid") || exit 1
	[ ! -e "$T/noid" ] || fail "export without an identity left $T/noid"
fi
GIT_AUTHOR_NAME="block-batch developers" GIT_AUTHOR_EMAIL=block-batch@example.org \
	expect_fail "is the repository's placeholder" \
	"$TOP/scripts/export-series.sh" -o "$T/ph"
[ ! -e "$T/ph" ] || fail "export with the placeholder identity left $T/ph"
GIT_AUTHOR_NAME="Ann Author" GIT_AUTHOR_EMAIL=ann.author@example.com \
	expect_fail "no posting 'nope' in .*patches/topics" \
	"$TOP/scripts/export-series.sh" -o "$T/nope" --topic nope
[ ! -e "$T/nope" ] || fail "export of an unknown posting left $T/nope"

sender="Ann Author <ann.author@example.com>"
export GIT_AUTHOR_NAME="Ann Author" GIT_AUTHOR_EMAIL=ann.author@example.com
mkdir -p "$T/mbox"
"$TOP/scripts/send-series.sh" --mbox "$T/mbox" > "$T/send.log" 2>&1 ||
	{ tail -n 20 "$T/send.log"; fail "send-series.sh --mbox failed"; }
. "$TOP/scripts/lib.sh"
. "$TOP/scripts/topics.sh"
bb_topics_read
tree=$("$TOP/scripts/fetch-base.sh") || fail "no base tree"
want=$(git -C "$tree" rev-parse 'block-batch^{tree}')
ublk_m=$(cd "$tree" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
	-f drivers/block/ublk_drv.c 2>/dev/null | sed -n 's/.*<\(.*\)> (maintainer:UBLK.*/\1/p' | head -n1)
[ -n "$ublk_m" ] || fail "no ublk maintainer in the base's MAINTAINERS"
k=0 total=0
for t in "${TOPICS[@]}"; do
	k=$((k + 1))
	m=$T/mbox/$k-$t.mbox
	[ -f "$m" ] || fail "no mbox $m for posting '$t'"
	np=$((TOPIC_LAST[$t] - TOPIC_FIRST[$t] + 1))
	n=$(grep -c '^From block-batch ' "$m")
	[ "$n" -eq $((np + 1)) ] || fail "$t: $n messages, expected $np patches and a cover letter"
	! grep -q 'block-batch@example.org\|block-batch developers' "$m" || fail "$t: the placeholder identity left in the mbox"
	grep -q "^Ann Author ($np):\$" "$m" || fail "$t: the cover letter's shortlog does not name the sender"
	[ "$(grep -c "^From: $sender\$" "$m")" -eq "$n" ] || fail "$t: not every message is From: $sender"
	[ "$(grep -c "^Signed-off-by: $sender\$" "$m")" -eq "$np" ] || fail "$t: not every patch is signed off by $sender"
	grep -q '^base-commit: [0-9a-f]\{40\}$' "$m" || fail "$t: no base-commit: line"
	pre=0
	for o in $(bb_topic_chain "$t"); do
		[ "$o" = "$t" ] || pre=$((pre + TOPIC_LAST[$o] - TOPIC_FIRST[$o] + 1))
	done
	[ "$(grep -c '^prerequisite-patch-id: [0-9a-f]\{40\}$' "$m")" -eq "$pre" ] ||
		fail "$t: $(grep -c '^prerequisite-patch-id:' "$m") prerequisite-patch-id: lines, expected $pre"
	if [ "${TOPIC_ON[$t]}" != - ]; then
		grep -q "^This series applies on top of \"" "$m" || fail "$t: the cover letter does not name the posting it applies on"
	fi
	! grep -q '^@PREREQUISITE@$' "$m" || fail "$t: @PREREQUISITE@ left in the cover letter"
	rcpt="linux-block@vger.kernel.org"
	[ "$t" != fcloop ] || rcpt="linux-nvme@lists.infradead.org"
	[ "$t" != fixes ] || rcpt="$rcpt axboe@kernel.dk"
	[ "$t" != sched-lock ] || rcpt="$rcpt stern@rowland.harvard.edu lkmm@lists.linux.dev"
	[ "$t" != ublk ] || rcpt="$rcpt $ublk_m"
	for a in $rcpt; do
		grep -q "^\(To\|Cc\):.*$a\|^	.*$a" "$m" || fail "$t: $a is not a recipient"
	done
	[ "$t" != fcloop ] || ! grep -q "^\(To\|Cc\):.*linux-block@\|^	.*linux-block@" "$m" ||
		fail "$t: an nvme-fcloop fix addressed to linux-block"
	c=$TOP/patches/cover/$t.txt
	[ "$(wc -l < "$c")" -le 80 ] || fail "$t: the cover letter $c has more than 80 lines"
	awk 'length > 72 { print FILENAME ":" FNR ": longer than 72 columns"; bad = 1 } END { exit bad }' "$c" ||
		fail "$t: the cover letter has lines longer than 72 columns"
	total=$((total + np))
	echo "ok: $t: $n messages from $sender, base-commit, $pre prerequisite-patch-id, recipients $rcpt"
done
[ "$total" -eq "$(grep -c '^[^#]' "$TOP/patches/series")" ] || fail "the postings hold $total patches, the series more"

# boot-postings.sh: every posting names tests, every kselftest named
# exists; an unknown posting and a malformed TESTS column are refused
# before any work
for t in "${TOPICS[@]}"; do
	if [ -z "${TOPIC_TESTS[$t]}" ]; then
		grep -Eq '(^|[^a-z])[a-z]+/[0-9]{3}([^0-9]|$)' "$TOP/patches/cover/$t.txt" ||
			fail "patches/topics: posting '$t' names no tests, and its cover letter no blktests case"
		continue
	fi
	for x in ${TOPIC_TESTS[$t]//,/ }; do
		case $x in
		ublk:*) ;;
		*) [ -f "$TOP/tools/testing/selftests/block-batch/$x" ] ||
			fail "patches/topics: posting '$t' names $x, which is no kselftest" ;;
		esac
	done
done
expect_fail "no posting 'nope' in .*patches/topics" "$TOP/scripts/boot-postings.sh" --posting nope
mkdir -p "$T/badtopics"
cp "$TOP/patches/series" "$T/badtopics/"
sed 's/test_plug_01\.sh,/plug1,/' "$TOP/patches/topics" > "$T/badtopics/topics"
BB_PATCHES=$T/badtopics expect_fail "bad test 'plug1'" "$TOP/scripts/boot-postings.sh"

# a sparse worktree: only the directories the series touches are checked out
git -C "$tree" worktree add -q --no-checkout --detach "$T/am" block-batch-base || fail "worktree"
trap 'git -C "$tree" worktree remove --force "$T/am" 2>/dev/null; rm -rf "$T"' EXIT
git -C "$T/am" sparse-checkout set block include/linux Documentation/block \
	Documentation/litmus-tests tools/testing/selftests drivers/block \
	drivers/nvme/target || fail "sparse-checkout"
git -C "$T/am" checkout -q --detach block-batch-base || fail "checkout"
# am MBOX -- git am, past the cover letter (no diff: git am stops, --skip)
am() {
	git -C "$T/am" am -q "$1" > "$T/am.log" 2>&1 ||
		{ grep -q 'Patch is empty' "$T/am.log" && git -C "$T/am" am -q --skip >> "$T/am.log" 2>&1; } ||
		{ cat "$T/am.log"; git -C "$T/am" am --abort 2>/dev/null; fail "git am of $1 failed"; }
}
k=0
for t in "${TOPICS[@]}"; do
	k=$((k + 1))
	[ "${TOPIC_ON[$t]}" = - ] || continue
	git -C "$T/am" checkout -q --detach block-batch-base
	am "$T/mbox/$k-$t.mbox"
	echo "ok: $t applies on the base alone"
done
git -C "$T/am" checkout -q --detach block-batch-base
k=0
for t in "${TOPICS[@]}"; do
	k=$((k + 1))
	am "$T/mbox/$k-$t.mbox"
done
np=$(grep -c '^[^#]' "$TOP/patches/series")
[ "$(git -C "$T/am" rev-list --count block-batch-base..HEAD)" -eq "$np" ] || fail "git am made the wrong number of commits"
[ "$(git -C "$T/am" log -1 --format='%an <%ae>')" = "$sender" ] || fail "the applied commits are not authored by $sender"
diff=$(git -C "$T/am" diff "$want" HEAD | grep '^[-+][^-+]')
[ "$diff" = "$(printf -- '-M:\tblock-batch developers <block-batch@example.org>\n+M:\t%s' "$sender")" ] ||
	{ echo "$diff" | head; fail "the mboxes do not reproduce the applied series"; }
echo "ok: git am of the mboxes, in order, reproduces tree $want, with the sender in MAINTAINERS"

if ! command -v b4 > /dev/null; then
	echo "note: b4 is not installed; b4 am not checked"
	exit 0
fi
git -C "$T/am" checkout -q --detach block-batch-base
k=0
for t in "${TOPICS[@]}"; do
	k=$((k + 1))
	rm -rf "$T/b4" && mkdir -p "$T/b4"
	(cd "$T/am" && b4 --offline-mode am --no-cover -m "$T/mbox/$k-$t.mbox" -o "$T/b4") > "$T/b4.log" 2>&1 ||
		{ cat "$T/b4.log"; fail "b4 am of posting $t failed"; }
	git -C "$T/am" am -q "$T"/b4/*.mbx > "$T/am.log" 2>&1 || { cat "$T/am.log"; fail "git am of b4's $t failed"; }
done
diff=$(git -C "$T/am" diff "$want" HEAD | grep '^[-+][^-+]')
[ "$diff" = "$(printf -- '-M:\tblock-batch developers <block-batch@example.org>\n+M:\t%s' "$sender")" ] ||
	{ echo "$diff" | head; fail "b4 am of the mboxes does not reproduce the applied series"; }
echo "ok: b4 am of each posting, in order, reproduces tree $want"
