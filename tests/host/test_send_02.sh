#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The blktests posting (export-series.sh --blktests, send-series.sh
# --blktests) on a small blktests-shaped git checkout whose "make check"
# passes: one patch per case of blktests/tests/block with its .out file,
# "PATCH blktests" subjects, the sender in From:, Signed-off-by: and the
# cases' Copyright line, base-commit: the checkout's HEAD, the checkout
# itself untouched; send --mbox addresses the mails to what the
# checkout's CONTRIBUTING.md names.  Refused: a case number the checkout
# already has, a "make check" that fails, a directory that is no
# blktests checkout; none of them leaves an export behind.
. "$(dirname "$0")/lib.sh"
export BB_OUT=$T/bbout

[ -x "$(git --exec-path)/git-send-email" ] || { echo "SKIP: git send-email is not installed (git-email)"; exit 4; }

bt=$T/blktests
mkdir -p "$bt/tests/block" && git -C "$bt" init -q &&
	printf '#!/bin/bash\n' > "$bt/check" && chmod +x "$bt/check" &&
	printf '.PHONY: check\ncheck:\n\t@true\n' > "$bt/Makefile" &&
	printf '%s\n' '# Contributing' '' 'You can contribute by sending patches to the' \
		'<list@example.org> mailing list and Main Tainer <main.tainer@example.org>' \
		'or by a pull request.' '' 'Other <not.this@example.org> text.' > "$bt/CONTRIBUTING.md" &&
	git -C "$bt" add -A && git -C "$bt" commit -q -m base || fail "cannot make a fake checkout"
head=$(git -C "$bt" rev-parse HEAD)
export GIT_AUTHOR_NAME="Ann Author" GIT_AUTHOR_EMAIL=ann.author@example.com
n=$(ls "$TOP"/blktests/tests/block | grep -cx '[0-9]*')
[ "$n" -gt 0 ] || fail "no cases in blktests/tests/block"

"$TOP/scripts/export-series.sh" --blktests "$bt" -o "$T/exp" > /dev/null 2> "$T/err" ||
	{ cat "$T/err"; fail "export --blktests failed"; }
d=$T/exp/blktests
[ "$(ls "$d" | grep -c '^000[1-9].*\.patch$')" -eq "$n" ] || fail "not one patch per case ($n)"
grep -q "^Subject: \[PATCH blktests 0/$n\] " "$d/0000-cover-letter.patch" || fail "no cover letter 0/$n"
! grep -l '@PREREQUISITE@\|block-batch@example.org\|block-batch developers' "$d"/*.patch ||
	fail "a placeholder is left in the posting"
for p in "$d"/000[1-9]*.patch; do
	grep -q '^Subject: \[PATCH blktests [0-9]*/[0-9]*\] block/[0-9]\{3\}: ' "$p" || fail "$p: subject"
	grep -q '^From: Ann Author <ann.author@example.com>$' "$p" || fail "$p: From:"
	grep -q '^Signed-off-by: Ann Author <ann.author@example.com>$' "$p" || fail "$p: Signed-off-by:"
	grep -q '^+# Copyright (C) 20[0-9][0-9] Ann Author <ann.author@example.com>$' "$p" || fail "$p: Copyright"
	[ "$(grep -c '^create mode 100755 tests/block/[0-9]*$\|^ create mode 100755 tests/block/[0-9]*$' "$p")" -eq 1 ] &&
		grep -q 'create mode 100644 tests/block/[0-9]*\.out$' "$p" || fail "$p: not one case and its .out file"
done
grep -q "^base-commit: $head$" "$d/0000-cover-letter.patch" || fail "base-commit is not the checkout's HEAD"
[ "$(git -C "$bt" rev-parse HEAD)" = "$head" ] && [ -z "$(git -C "$bt" status --porcelain)" ] ||
	fail "the checkout was written"
echo "ok: export --blktests: $n patches and a cover letter, the checkout untouched"

mkdir -p "$T/mb"
"$TOP/scripts/send-series.sh" --blktests "$bt" --mbox "$T/mb" > "$T/out" 2> "$T/err" ||
	{ cat "$T/err"; fail "send-series.sh --blktests --mbox failed"; }
[ "$(grep -c '^From block-batch' "$T/mb/blktests.mbox")" -eq $((n + 1)) ] || fail "not $((n + 1)) mails in the mbox"
[ "$(ls "$BB_OUT/blktests-posting")" = blktests ] || fail "send exported somewhere else than $BB_OUT/blktests-posting/blktests"
sed -n '/^To:/,/^Subject:/p' "$T/mb/blktests.mbox" | head -n 3 > "$T/to"
grep -q 'list@example.org' "$T/to" && grep -q 'main.tainer@example.org' "$T/to" &&
	! grep -q 'not.this' "$T/mb/blktests.mbox" || { cat "$T/to"; fail "recipients are not CONTRIBUTING.md's"; }
echo "ok: send --blktests --mbox: $((n + 1)) mails to CONTRIBUTING.md's addresses"

# refusals, with their temporary clones where the test can see them
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
expect_fail 'not a blktests git checkout' "$TOP/scripts/export-series.sh" --blktests "$T" -o "$T/no1"
cp -a "$bt" "$T/taken" && first=$(ls "$TOP"/blktests/tests/block | grep -x '[0-9]*' | head -n1) &&
	: > "$T/taken/tests/block/$first" && git -C "$T/taken" add -A && git -C "$T/taken" commit -q -m taken ||
	fail "cannot make a checkout with a taken number"
expect_fail "block/$first is taken" "$TOP/scripts/export-series.sh" --blktests "$T/taken" -o "$T/no2"
cp -a "$bt" "$T/bad" && printf '.PHONY: check\ncheck:\n\t@echo shellcheck says no; false\n' > "$T/bad/Makefile" &&
	git -C "$T/bad" commit -q -am bad || fail "cannot make a failing checkout"
expect_fail "make check fails" "$TOP/scripts/export-series.sh" --blktests "$T/bad" -o "$T/no3"
for x in no1 no2 no3; do
	[ ! -e "$T/$x" ] || fail "a refused export left $T/$x"
done
[ -z "$(ls -A "$TMPDIR")" ] || fail "a refused export left its clone in $TMPDIR: $(ls "$TMPDIR")"
echo "PASS"
