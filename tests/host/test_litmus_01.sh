#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The litmus tests in Documentation/litmus-tests/block get the verdict their
# "Result:" line claims from herd7 (LKMM), and scripts/run-litmus.sh catches
# a wrong "Result:" line.  Skips (4) when herd7 cannot be installed.

# herd7 and the base tree live in the user's cache, not in the test's.
cache=${BB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/block-batch}
. "$(dirname "$0")/lib.sh"

# Unreachable archive, no herd7: a clear error, and run-litmus.sh skips.
BB_HERD7_DIR=$T/noherd BB_DEBIAN_MIRROR=http://127.0.0.1:9/debian expect_fail \
	"^block-batch: error: cannot install herd7" "$TOP/scripts/install-herd7.sh"
BB_HERD7_DIR=$T/noherd BB_DEBIAN_MIRROR=http://127.0.0.1:9/debian \
	"$TOP/scripts/run-litmus.sh" > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 4 ] && grep -q 'herd7 is unavailable' "$T/err" ||
	{ cat "$T/out" "$T/err"; fail "run-litmus.sh without herd7: rc=$rc, expected 4 (skip)"; }
echo "ok: run-litmus.sh without herd7 -> rc=4: $(grep -m1 'herd7 is unavailable' "$T/err")"

if ! BB_CACHE=$cache "$TOP/scripts/install-herd7.sh" > /dev/null 2> "$T/err"; then
	cat "$T/err"
	echo "SKIP: herd7 cannot be installed"
	exit 4
fi
tree=$(BB_CACHE=$cache "$TOP/scripts/fetch-base.sh" 2> "$T/err") ||
	{ cat "$T/err"; echo "SKIP: no base tree for tools/memory-model"; exit 4; }
mm=$tree/tools/memory-model

# The real tests: every one as expected.
BB_CACHE=$cache "$TOP/scripts/run-litmus.sh" --mm-dir "$mm" > "$T/tap" 2> "$T/err"
rc=$?
cat "$T/tap"
[ $rc -eq 0 ] || { cat "$T/err"; fail "run-litmus.sh: rc=$rc"; }
n=$(ls "$TOP"/Documentation/litmus-tests/block/*.litmus | wc -l)
[ "$n" -ge 3 ] || fail "only $n litmus tests in Documentation/litmus-tests/block"
[ "$(grep -cE '^ok [0-9]+ litmus: .* \((Never|Sometimes|Always)\)$' "$T/tap")" -eq "$n" ] ||
	fail "expected $n 'ok' lines from run-litmus.sh"

# A wrong expectation is caught: the negative control (no smp_mb())
# claimed to be Never, next to a correct test given as a file, and a test
# with no Result: line.
nomb=$TOP/Documentation/litmus-tests/block/blk-mq-quiesce-unquiesce-vs-run-no-mb.litmus
good=$TOP/Documentation/litmus-tests/block/blk-mq-quiesce-unquiesce-vs-run.litmus
mkdir -p "$T/wrong"
sed 's/^ \* Result: Sometimes$/ * Result: Never/' "$nomb" > "$T/wrong/no-mb-claims-never.litmus"
grep -q '^ \* Result: Never$' "$T/wrong/no-mb-claims-never.litmus" ||
	fail "could not rewrite the Result: line of $nomb"
grep -v '^ \* Result: ' "$good" > "$T/wrong/no-result.litmus"
BB_CACHE=$cache "$TOP/scripts/run-litmus.sh" --mm-dir "$mm" "$good" "$T/wrong" \
	> "$T/tap" 2> "$T/err"
rc=$?
cat "$T/tap"
[ $rc -eq 1 ] || fail "run-litmus.sh on wrong expectations: rc=$rc, expected 1"
grep -q '^ok 1 litmus: .*blk-mq-quiesce-unquiesce-vs-run.litmus (Never)$' "$T/tap" ||
	fail "the correct test was not reported ok"
grep -q '^not ok [0-9]* litmus: .*no-mb-claims-never.litmus (expected Never, herd7 says Sometimes)$' "$T/tap" ||
	fail "the wrong Result: line was not caught"
grep -q "^not ok [0-9]* litmus: .*no-result.litmus (no '(\* Result: ...' line)$" "$T/tap" ||
	fail "the missing Result: line was not caught"
echo "ok: wrong expectations caught"
