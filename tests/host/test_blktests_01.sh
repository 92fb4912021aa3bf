#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The blktests cases and what runs them without a kernel: each case in
# blktests/tests/block has its .out file and blktests' header (SPDX,
# Copyright, DESCRIPTION, QUICK or TIMED); blktests/shim's ./check runs
# fake cases with ./check's verdicts and output format (set_conditions()
# before requires(), a failed test() status, a skip from test(), a
# registered cleanup); and
# scripts/testlib/parse.sh reads both its lines and those of blktests'
# own ./check.  With shellcheck installed, the cases and the shim pass it
# as blktests' "make check" runs it.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/testlib/parse.sh"

# --- the cases ---------------------------------------------------------------
n=0
for c in "$TOP"/blktests/tests/block/[0-9][0-9][0-9]; do
	name=block/${c##*/}
	[ -f "$c.out" ] || fail "$name has no .out file"
	[ ! -x "$c.out" ] || fail "$name.out is executable (blktests' make check refuses it)"
	[ -x "$c" ] || fail "$name is not executable"
	sed -n 2p "$c" | grep -qx '# SPDX-License-Identifier: GPL-3.0+' ||
		fail "$name: line 2 is not blktests' SPDX line"
	sed -n 3p "$c" | grep -Eq '^# Copyright \(C\) [0-9]{4} .+' ||
		fail "$name: line 3 is no Copyright line"
	grep -q '^DESCRIPTION="[^"]\+"$' "$c" || fail "$name has no DESCRIPTION"
	[ "$(grep -c '^\(QUICK\|TIMED\)=1$' "$c")" -eq 1 ] ||
		fail "$name: one of QUICK=1 and TIMED=1"
	! grep -q TODO "$c" || fail "$name has a TODO (blktests' make check refuses it)"
	head -n1 "$c.out" | grep -qx "Running $name" || fail "$name.out does not start with 'Running $name'"
	n=$((n + 1))
done
[ $n -gt 0 ] || fail "no blktests cases in blktests/tests/block"
echo "ok: $n cases with .out files and blktests' header"

# --- the shim on fake cases --------------------------------------------------
cp -a "$TOP/blktests/shim" "$T/bt"
# no root needed for the fake group
printf '%s\n' '. common/rc' > "$T/bt/tests/block/rc"
case_hdr() {
	printf '%s\n' '#!/bin/bash' '. tests/block/rc' "DESCRIPTION=\"$1\"" 'QUICK=1'
}
{ case_hdr "pass"; printf '%s\n' 'test() { echo "Running $TEST_NAME"; echo "Test complete"; }'; } > "$T/bt/tests/block/901"
{ case_hdr "output"; printf '%s\n' 'test() { echo "Running $TEST_NAME"; echo oops; echo "Test complete"; }'; } > "$T/bt/tests/block/902"
{ case_hdr "status"; printf '%s\n' 'test() { echo "Running $TEST_NAME"; echo "Test complete"; return 1; }'; } > "$T/bt/tests/block/903"
# conditions: requires() sees the condition's variable
{ case_hdr "conds"; printf '%s\n' \
	'set_conditions() { local v=(a b); [[ -z $1 ]] && { echo 2; return; }; x=${v[$1]}; COND_DESC="x=$x"; }' \
	'requires() { [[ $x == b ]] && SKIP_REASONS+=("no b here"); }' \
	'test() { echo "Running $TEST_NAME"; echo "Test complete"; }'; } > "$T/bt/tests/block/904"
{ case_hdr "skip in test"; printf '%s\n' \
	'test() { echo "Running $TEST_NAME"; SKIP_REASONS+=("nothing happened"); return 1; }'; } > "$T/bt/tests/block/905"
# a registered cleanup runs after test(), also when test() exits the shell
{ case_hdr "cleanup"; printf '%s\n' \
	"gone() { echo \"\$TEST_NAME\" >> $T/cleaned; }" \
	'test() { echo "Running $TEST_NAME"; _register_test_cleanup gone; echo "Test complete"; }'; } > "$T/bt/tests/block/906"
{ case_hdr "cleanup on exit"; printf '%s\n' \
	"gone() { echo \"\$TEST_NAME\" >> $T/cleaned; }" \
	'test() { echo "Running $TEST_NAME"; _register_test_cleanup gone; exit 1; }'; } > "$T/bt/tests/block/907"
for c in 901 902 903 904 905 906 907; do
	printf 'Running block/%s\nTest complete\n' "$c" > "$T/bt/tests/block/$c.out"
done
{
	echo BB-BLKTESTS-BEGIN
	RESULTS_DIR=$T/res "$T/bt/check" block/901 block/902 block/903 block/904 block/905 \
		block/906 block/907
	echo "BB-BLKTESTS-END rc=$?"
} > "$T/shim.log" 2>&1
printf '%s\n' block/906 block/907 | diff -u - "$T/cleaned" ||
	fail "the shim did not run each registered cleanup once (after test(), and on an exit from it)"
grep -q '^BB-BLKTESTS-END rc=1$' "$T/shim.log" || { cat "$T/shim.log"; fail "the shim did not exit 1 with failed cases"; }
grep -qx 'block/904 (x=a) (conds) *\[passed\]' "$T/shim.log" ||
	{ cat "$T/shim.log"; fail "the shim's line is not ./check's: NAME (COND) (DESCRIPTION) [STATUS]"; }
blktests_results "$T/shim.log" | grep -v '^#' > "$T/got"
printf '%s\n' 'passed|block/901' 'failed|block/902' 'failed|block/903' \
	'passed|block/904 (x=a)' 'not run|block/904 (x=b)' 'not run|block/905' \
	'passed|block/906' > "$T/want"
diff -u "$T/want" "$T/got" || fail "the shim's verdicts, as parsed, are not the expected ones"
blktests_results "$T/shim.log" | grep -qx '#|    no b here' || fail "a skip reason is not kept"
echo "ok: the shim's verdicts: $(paste -sd' ' "$T/got")"

# --- blktests' own ./check output (not a tty): the line before a test runs
# (no status), the verdict, its runtime, skip reasons and a diff ------------
cat > "$T/check.log" <<'EOF'
BB-BLKTESTS-BEGIN
block/053 (sched=mq-deadline) (merge sequential writes that wait in an I/O scheduler)
block/053 (sched=mq-deadline) (merge sequential writes that wait in an I/O scheduler) [passed]
    runtime    ...  61.000s
block/054 (dispatch sequential bursts through mq-deadline in order)
block/054 (dispatch sequential bursts through mq-deadline in order) [failed]
    runtime    ...  20.100s
    --- tests/block/054.out
block/055 (sched=none) (dm suspend/resume (live-queue quiesce) under writes)
block/055 (sched=none) (dm suspend/resume (live-queue quiesce) under writes) [not run]
    driver dm_multipath is not available
    full: nodev_sched_none/block/055.full: none: 100 cycles
BB-BLKTESTS-END rc=1
EOF
blktests_results "$T/check.log" > "$T/got"
printf '%s\n' 'passed|block/053 (sched=mq-deadline)' '#|    runtime    ...  61.000s' \
	'failed|block/054' '#|    runtime    ...  20.100s' '#|    --- tests/block/054.out' \
	'not run|block/055 (sched=none)' '#|    driver dm_multipath is not available' \
	'#|    full: nodev_sched_none/block/055.full: none: 100 cycles' > "$T/want"
diff -u "$T/want" "$T/got" || fail "blktests' ./check lines are not parsed as expected"
echo "ok: blktests' ./check lines parsed"

# --- a BB_BLKTESTS that is no blktests checkout: refused before any work ---
mkdir -p "$T/nocheck"
BB_BLKTESTS=$T/nocheck expect_fail "BB_BLKTESTS=$T/nocheck: no blktests ./check there" \
	"$TOP/scripts/test.sh" --tests test_order_01.sh

# --- shellcheck, as blktests' make check runs it -----------------------------
if command -v shellcheck > /dev/null; then
	cp "$TOP"/blktests/tests/block/[0-9]* "$T/bt/tests/block/"
	cp "$TOP/blktests/shim/tests/block/rc" "$T/bt/tests/block/rc"
	rm -f "$T"/bt/tests/block/90[0-9]*
	(cd "$T/bt" && shellcheck -x -e SC2119 -f gcc check common/* tests/block/rc \
		tests/block/[0-9]*[0-9]) || fail "shellcheck of the cases and the shim"
	echo "ok: shellcheck of the cases and the shim"
else
	echo "note: no shellcheck: the cases' shellcheck is left to blktests' make check"
fi
