#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A skip fails the test command unless tests/expected-skips names it for
# the run: scripts/test.sh --host-only in a copy of the scripts, whose only
# host test skips.  Fails when that run is green without an entry (a skip
# passing as before), when it is red with one, when an entry for another
# tier or fragment is taken, or when a malformed list is not refused before
# anything runs.  Also checks the repository's own list.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/lib.sh"
. "$TOP/scripts/testlib/skips.sh"
# the copy's own list, whatever the caller's run was given
unset BB_EXPECTED_SKIPS

skips_entries "$TOP/tests/expected-skips" > "$T/entries" ||
	fail "tests/expected-skips is malformed"
echo "ok: tests/expected-skips: $(wc -l < "$T/entries") entries, well formed"

# A copy of the scripts whose host tests are one that skips.
top=$T/top
mkdir -p "$top/tests/host"
cp -r "$TOP/scripts" "$top/"
# (the machine's speed is no matter here: three compiles saved a run)
printf '#!/bin/bash\necho "calibration 0.97 s, factor 1.00 (reference 0.97 s)"\n' > "$top/scripts/calibrate.sh"
printf '#!/bin/bash\necho "SKIP: no such device"\nexit 4\n' > "$top/tests/host/test_gone_01.sh"
name="host: test_gone_01"

# run WHAT EXPECT_RC [LIST] -- test.sh --host-only with LIST as the
#   expected skips (none: an empty list); its status must be EXPECT_RC
#   (0 or 1), and its last line "N passed, N failed, N skipped"
run() {
	local what=$1 want=$2 rc

	printf '%s\n' "${3:-# none}" > "$top/tests/expected-skips"
	BB_OUT=$T/o BB_META= bash "$top/scripts/test.sh" --host-only > "$T/tap" 2> "$T/err"
	rc=$?
	[ "$want" -eq 0 ] && [ $rc -ne 0 ] && { cat "$T/tap" "$T/err"; fail "$what: exit $rc, expected 0"; }
	[ "$want" -ne 0 ] && [ $rc -eq 0 ] && { cat "$T/tap"; fail "$what: exit 0, expected a failure"; }
	tail -n 1 "$T/tap" | grep -Eq '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' ||
		{ cat "$T/tap"; fail "$what: no closing line"; }
	grep -q "^ok [0-9]* $name # SKIP$" "$T/tap" || { cat "$T/tap"; fail "$what: the skip is not reported as one"; }
	echo "ok: $what: exit $rc; $(grep -E '^(not )?ok [0-9]+ skips: ' "$T/tap")"
}

run "no entry" 1
grep -q "^# unexpected skip: $name$" "$T/tap" || fail "the unexpected skip is not named"
run "an entry" 0 "$name | always | the device is gone"
run "a pattern" 0 "host: test_gone_* | tier=ci | the device is gone"
run "an entry of another tier" 1 "$name | tier=full | the device is gone"
run "an entry of a fragment not used" 1 "$name | fragment=rt | the device is gone"
run "an entry of another test" 1 "host: test_other_01 | always | the device is gone"

printf '%s\n' "$name | always" > "$top/tests/expected-skips"
BB_OUT=$T/o bash "$top/scripts/test.sh" --host-only > "$T/tap" 2> "$T/err" &&
	fail "a list with an entry of two fields was taken"
grep -q 'not "TEST | WHEN | WHY"' "$T/err" || { cat "$T/err"; fail "the malformed entry is not named"; }
[ ! -s "$T/tap" ] || { cat "$T/tap"; fail "test.sh ran something before refusing the list"; }
printf '%s\n' "$name | tier=nightly | the device is gone" > "$top/tests/expected-skips"
expect_fail 'unknown condition "tier=nightly"' bash "$top/scripts/test.sh" --host-only
echo "ok: a malformed list is refused before anything runs"
