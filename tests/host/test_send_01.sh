#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Submission tooling on the real series:
#  - export stops with a clear message without a git identity, or with the
#    repository's placeholder as identity, and exports nothing;
#  - send-series.sh --mbox delivers the series into a local mbox with the
#    sender's From:, Signed-off-by: and MAINTAINERS entry, a base-commit:,
#    and To/Cc from get_maintainer.pl (block layer and memory model);
#  - git am of that mbox onto the base gives the applied series' tree, with
#    the sender in MAINTAINERS in place of the placeholder.
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

sender="Ann Author <ann.author@example.com>"
export GIT_AUTHOR_NAME="Ann Author" GIT_AUTHOR_EMAIL=ann.author@example.com
"$TOP/scripts/send-series.sh" --mbox "$T/mbox" > "$T/send.log" 2>&1 ||
	{ tail -n 20 "$T/send.log"; fail "send-series.sh --mbox failed"; }
n=$(grep -c '^From block-batch ' "$T/mbox")
np=$(grep -c '^[^#]' "$TOP/patches/series")
[ "$n" -eq $((np + 1)) ] || fail "$n messages in the mbox, expected $np patches and a cover letter"
! grep -q 'block-batch@example.org\|block-batch developers' "$T/mbox" || fail "the placeholder identity left in the mbox"
grep -q "^Ann Author ($np):\$" "$T/mbox" || fail "the cover letter's shortlog does not name the sender"
[ "$(grep -c "^From: $sender\$" "$T/mbox")" -eq "$n" ] || fail "not every message is From: $sender"
[ "$(grep -c "^Signed-off-by: $sender\$" "$T/mbox")" -eq "$np" ] || fail "not every patch is signed off by $sender"
grep -q '^+M:	Ann Author <ann.author@example.com>$' "$T/mbox" || fail "the new MAINTAINERS entry does not name the sender"
grep -q '^base-commit: [0-9a-f]\{40\}$' "$T/mbox" || fail "no base-commit: line"
for a in axboe@kernel.dk linux-block@vger.kernel.org stern@rowland.harvard.edu lkmm@lists.linux.dev; do
	grep -q "^\(To\|Cc\):.*$a\|^	.*$a" "$T/mbox" || fail "$a is not a recipient"
done
echo "ok: $n messages in the mbox from $sender, base-commit, block and LKMM recipients"

tree=$("$TOP/scripts/fetch-base.sh") || fail "no base tree"
want=$(git -C "$tree" rev-parse 'block-batch^{tree}')
# a sparse worktree: only the directories the series touches are checked out
git -C "$tree" worktree add -q --no-checkout --detach "$T/am" block-batch-base || fail "worktree"
trap 'git -C "$tree" worktree remove --force "$T/am" 2>/dev/null; rm -rf "$T"' EXIT
git -C "$T/am" sparse-checkout set block include/linux Documentation/block \
	Documentation/litmus-tests tools/testing/selftests || fail "sparse-checkout"
git -C "$T/am" checkout -q --detach block-batch-base || fail "checkout"
# the cover letter comes first and has no diff: git am stops there, --skip
git -C "$T/am" am -q "$T/mbox" > "$T/am.log" 2>&1 ||
	{ grep -q 'Patch is empty' "$T/am.log" && git -C "$T/am" am -q --skip >> "$T/am.log" 2>&1; } ||
	{ cat "$T/am.log"; fail "git am of the mbox failed"; }
[ "$(git -C "$T/am" rev-list --count block-batch-base..HEAD)" -eq "$np" ] || fail "git am made the wrong number of commits"
[ "$(git -C "$T/am" log -1 --format='%an <%ae>')" = "$sender" ] || fail "the applied commits are not authored by $sender"
diff=$(git -C "$T/am" diff "$want" HEAD | grep '^[-+][^-+]')
[ "$diff" = "$(printf -- '-M:\tblock-batch developers <block-batch@example.org>\n+M:\t%s' "$sender")" ] ||
	{ echo "$diff" | head; fail "the mbox does not reproduce the applied series"; }
echo "ok: git am of the mbox reproduces tree $want, with the sender in MAINTAINERS"
