#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The mutants and scripts/mutants.sh, without building a kernel:
#  - every tests/mutants/*.patch has its Mutant:, Tests: and Expect: header
#    lines, names existing kselftests, and says Why: when not-caught;
#  - 'mutants.sh --list' lists them all; an unknown name, a missing header or
#    a not-caught mutant without Why: is refused;
#  - a whole run on a fake kernel, with stubs for apply-series.sh and
#    test.sh: each mutant is tested alone, the outcomes are sorted as the
#    Expect: lines say, a patch that does not apply stops the run before
#    anything is tested, and the mutant worktree is back at the clean series;
#    --resume keeps an outcome only for the same kernel files, selftest
#    directory, mutant and options;
#  - when the cached applied series is there and newer than patches/, every
#    mutant applies to it ('git apply --cached --check' on a scratch index:
#    the tree is only read).

# The applied series lives in the user's cache, not in the test's.
cache=${BB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/block-batch}
. "$(dirname "$0")/lib.sh"

kst=$TOP/tools/testing/selftests/block-batch
# Being written next to the mutants: may be named before it exists.
pending=" test_quiesce_03.sh "

# hdr PATCH KEY -- as in scripts/mutants.sh
hdr() {
	sed -n -e '/^diff --git /q' -e "s/^$2:[[:space:]]*//p" "$1" | head -n1
}

# --- the real mutants --------------------------------------------------------
n=0
for p in "$TOP"/tests/mutants/*.patch; do
	[ -f "$p" ] || continue
	n=$((n + 1))
	m=$(basename "$p" .patch)
	[[ $m =~ ^[0-9][0-9]-[a-z0-9-]+$ ]] || fail "$m: not named NN-name.patch"
	[ -n "$(hdr "$p" Mutant)" ] || fail "$m: no Mutant: line"
	tests=$(hdr "$p" Tests)
	[ -n "$tests" ] || fail "$m: no Tests: line"
	for t in ${tests//,/ }; do
		# the kernel's own ublk selftests, in the base tree
		case $t in
		ublk:*)
			[[ $t =~ ^ublk:test_[a-z]+_[0-9]+\.sh$ ]] ||
				fail "$m: Tests: $t is no ublk selftest name"
			continue ;;
		esac
		[ -f "$kst/$t" ] || [[ $pending == *" $t "* ]] ||
			fail "$m: Tests: names $t, which is not in $kst"
	done
	case $(hdr "$p" Expect) in
	fail|stall) ;;
	not-caught) [ -n "$(hdr "$p" Why)" ] || fail "$m: not-caught without a Why: line" ;;
	*) fail "$m: Expect: '$(hdr "$p" Expect)' is not fail, stall or not-caught" ;;
	esac
	grep -q '^diff --git ' "$p" || fail "$m: no diff"
done
[ $n -ge 6 ] || fail "only $n mutants in tests/mutants"
echo "ok: $n mutants with Mutant:, Tests: and Expect: (and Why: where not-caught)"

"$TOP/scripts/mutants.sh" --list > "$T/list" 2> "$T/err" ||
	{ cat "$T/err"; fail "mutants.sh --list failed"; }
[ "$(wc -l < "$T/list")" -eq $n ] || { cat "$T/list"; fail "--list: not $n lines"; }
for p in "$TOP"/tests/mutants/*.patch; do
	grep -q "^$(basename "$p" .patch) " "$T/list" ||
		fail "--list does not name $(basename "$p")"
done
echo "ok: mutants.sh --list names all $n"
expect_fail "no mutant 'no-such-mutant'" "$TOP/scripts/mutants.sh" no-such-mutant
expect_fail "no mutant 'no-such-mutant'" "$TOP/scripts/mutants.sh" --list no-such-mutant

# --- a run on a fake kernel --------------------------------------------------
# The applied "series": a fake kernel with the selftest directory.
k=$T/linux
mk_fake_kernel "$k"
mkdir -p "$k/tools/testing/selftests/block-batch"
echo 'exit 0' > "$k/tools/testing/selftests/block-batch/test_x_01.sh"
git -C "$k" add -A && git -C "$k" commit -q -m series

# Mutants: mk_mutant NAME EXPECT TESTS SED-EXPR [WHY]
md=$T/mutants
mkdir -p "$md"
mk_mutant() {
	sed -i "$4" "$k/block/blk-core.c"
	{
		echo "Mutant: $1 breaks something"
		echo "Tests: $3"
		echo "Expect: $2"
		[ -n "${5:-}" ] && echo "Why: $5"
		echo
		git -C "$k" diff
	} > "$md/$1.patch"
	git -C "$k" checkout -q -- .
}
mk_mutant 01-caught fail test_x_01.sh,test_y_01.sh 's|^int a;|int a; /* MUTANT_FAIL */|'
mk_mutant 02-hangs stall test_x_01.sh 's|^int c;|int c; /* MUTANT_STALL */|'
mk_mutant 03-proved not-caught test_x_01.sh 's|^/\* 4 \*/|/* 4: harmless here */|' \
	"a litmus test"

# The tooling: mutants.sh and lib.sh as they are, stubs for the rest.
top=$T/top
mkdir -p "$top/scripts"
cp "$TOP/scripts/mutants.sh" "$TOP/scripts/lib.sh" "$top/scripts/"
# (each application makes new commits of the same tree, as git am does)
cat > "$top/scripts/apply-series.sh" <<EOT
#!/bin/bash
n=\$(cat "$T/applied" 2>/dev/null || echo 0)
echo \$((n + 1)) > "$T/applied"
GIT_COMMITTER_DATE="\$((1700000000 + n)) +0000" git -C "$k" commit -q --amend --no-edit
echo "$k"
EOT
cat > "$top/scripts/test.sh" <<'EOT'
#!/bin/bash
# stub: what the mutant tree looks like decides the outcome
while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	*) shift ;;
	esac
done
mkdir -p "$BB_OUT"
git -C "$tree" diff > "$BB_OUT/seen.diff"
# another command applying the series to the same tree meanwhile: its
# HEAD moves on, to a commit with other selftests
if [ -n "${BB_TEST_MOVE_SERIES:-}" ]; then
	echo "# moved" >> "$BB_TEST_MOVE_SERIES/tools/testing/selftests/block-batch/test_x_01.sh"
	git -C "$BB_TEST_MOVE_SERIES" -c user.name=t -c user.email=t@t commit -q -am moved
fi
echo "$tests" > "$BB_OUT/seen.tests"
echo "TAP version 13"
f=$tree/block/blk-core.c
if grep -q MUTANT_FAIL "$f"; then
	echo "not ok 1 guest: block-batch: test_x_01.sh"
	echo "# # x_01: FAIL: the stub says so"
	exit 1
elif grep -q MUTANT_NOVERDICT "$f"; then
	echo "not ok 1 guest: boots and starts the test runner"
	exit 1
elif grep -q MUTANT_STALL "$f"; then
	echo "not ok 1 guest: block-batch: test_x_01.sh"
	echo "# # x_01: FAIL: stalled: no progress for 90 s"
	exit 1
fi
echo "ok 1 guest: block-batch: test_x_01.sh"
echo "ok 2 guest: the kselftest runner ran tests"
EOT
chmod +x "$top/scripts/"*.sh

# mutants_run ARG... -- the copy of mutants.sh on the fake kernel
mutants_run() {
	BB_MUTANTS_DIR=$md BB_OUT=$T/mout "$top/scripts/mutants.sh" "$@"
}
# clean_at_series -- the mutant worktree holds the clean series
clean_at_series() {
	local mt=$BB_CACHE/mutant-trees/linux

	[ "$(git -C "$mt" rev-parse HEAD)" = "$(git -C "$k" rev-parse HEAD)" ] ||
		fail "mutant tree not at the series' HEAD"
	[ -z "$(git -C "$mt" status --porcelain --untracked-files=all)" ] ||
		{ git -C "$mt" status --short; fail "mutant tree not clean"; }
}

mutants_run > "$T/table" 2> "$T/err"
rc=$?
[ $rc -eq 0 ] || { cat "$T/table" "$T/err"; fail "mutants.sh on the fake kernel: rc=$rc"; }
cat "$T/table"
row='| 01-caught | test_x_01.sh | fail | caught (fail) | yes |'
row+=' guest: block-batch: test_x_01.sh; x_01: FAIL: the stub says so |'
grep -qxF "$row" "$T/table" ||
	fail "01-caught: wrong row"
grep -q '^| 02-hangs | test_x_01.sh | stall | caught (stall) | yes |' "$T/table" ||
	fail "02-hangs: wrong row"
grep -q '^| 03-proved | test_x_01.sh | not-caught | NOT CAUGHT | yes | - |$' "$T/table" ||
	fail "03-proved: wrong row"
grep -q 'test_y_01.sh is not in the series: left out' "$T/err" ||
	fail "a test missing from the series was not reported"
for m in 01-caught 02-hangs 03-proved; do
	[ -s "$T/mout/mutants/$m.log" ] || fail "no log for $m"
	# each run saw its own mutant and nothing else
	diff <(sed '1,/^$/d' "$md/$m.patch") "$T/mout/mutants/$m/seen.diff" > /dev/null ||
		fail "$m: the tree under test was not the series plus $m alone"
	[ "$(cat "$T/mout/mutants/$m/seen.tests")" = test_x_01.sh ] ||
		fail "$m: test.sh was given '$(cat "$T/mout/mutants/$m/seen.tests")'"
done
clean_at_series
echo "ok: 3 fake mutants sorted as expected, one at a time, tree clean afterwards"

# --resume: the outcomes of that run are kept, and test.sh is not run again
# for them, although the series was applied again (new commits, the same
# tree); a mutant whose patch changed, or other options, run again.
grep -v '^|' "$T/table" | grep -q 'kept from earlier runs' &&
	fail "a run without --resume says it kept outcomes"
rm -rf "$T/mout/mutants/01-caught" "$T/mout/mutants/02-hangs" "$T/mout/mutants/03-proved"
cp "$T/table" "$T/table.first"
mutants_run --resume > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume: rc=$?"; }
for m in 01-caught 02-hangs 03-proved; do
	[ ! -e "$T/mout/mutants/$m/seen.diff" ] || fail "--resume ran $m again"
done
diff <(grep '^|' "$T/table.first") <(grep '^|' "$T/table") ||
	fail "--resume: the table differs from the run it kept"
grep -q '^3 of them kept from earlier runs of the same files and options (--resume), since 20[0-9-]*T' "$T/table" ||
	{ cat "$T/table"; fail "--resume: the table does not say what it kept"; }
sed -i 's|/\* 4: harmless here \*/|/* 4: still harmless */|' "$md/03-proved.patch"
mutants_run --resume > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume, 03 changed: rc=$?"; }
[ -e "$T/mout/mutants/03-proved/seen.diff" ] || fail "--resume kept the outcome of a changed mutant"
[ ! -e "$T/mout/mutants/01-caught/seen.diff" ] || fail "--resume ran 01 again"
grep -q '^2 of them kept' "$T/table" || { cat "$T/table"; fail "--resume: not 2 kept"; }
mutants_run --resume 01 -- --smp 4 > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume -- --smp 4: rc=$?"; }
[ -e "$T/mout/mutants/01-caught/seen.diff" ] || fail "--resume kept an outcome of other options"
# a change to another selftest directory keeps them; one to the kernel
# (any file outside tools/testing/selftests) or to their own does not
rm -rf "$T/mout/mutants/0"[123]-*/
mkdir -p "$k/tools/testing/selftests/ublk"
echo 'exit 0' > "$k/tools/testing/selftests/ublk/test_z_01.sh"
git -C "$k" add -A && git -C "$k" commit -q -m "ublk test"
mutants_run --resume 02 03 > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume after a ublk selftest change: rc=$?"; }
[ ! -e "$T/mout/mutants/02-hangs/seen.diff" ] || fail "--resume ran 02 again after a change to another selftest directory"
# in its own directory: another test added keeps it; a change to its own
# test, or to a helper there (test_common.sh), does not
echo 'exit 0' > "$k/tools/testing/selftests/block-batch/test_x_02.sh"
git -C "$k" add -A && git -C "$k" commit -q -m "block-batch test"
mutants_run --resume 02 > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume after another block-batch test: rc=$?"; }
[ ! -e "$T/mout/mutants/02-hangs/seen.diff" ] || fail "--resume ran 02 again after a test it does not run was added"
echo '# changed' >> "$k/tools/testing/selftests/block-batch/test_x_01.sh"
git -C "$k" add -A && git -C "$k" commit -q -m "x_01 changed"
mutants_run --resume 02 > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume after a change to its test: rc=$?"; }
[ -e "$T/mout/mutants/02-hangs/seen.diff" ] || fail "--resume kept 02 after a change to its own test"
rm -rf "$T/mout/mutants/02-hangs/"
echo '# a helper' > "$k/tools/testing/selftests/block-batch/test_common.sh"
git -C "$k" add -A && git -C "$k" commit -q -m "block-batch helper"
mutants_run --resume 02 > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume after a helper change: rc=$?"; }
[ -e "$T/mout/mutants/02-hangs/seen.diff" ] || fail "--resume kept 02 after a change to test_common.sh of its directory"
rm -rf "$T/mout/mutants/02-hangs/"
# (a change to Documentation/ keeps it: no kernel build reads it)
mutants_run --resume 02 > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume 02: rc=$?"; }
rm -rf "$T/mout/mutants/02-hangs/"
mkdir -p "$k/Documentation/block"
echo 'Some text.' > "$k/Documentation/block/x.rst"
git -C "$k" add -A && git -C "$k" commit -q -m "documentation change"
mutants_run --resume 02 > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume after a Documentation/ change: rc=$?"; }
[ ! -e "$T/mout/mutants/02-hangs/seen.diff" ] || fail "--resume ran 02 again after a change to Documentation/ only"
echo '/* more */' > "$k/block/blk-extra.c"
git -C "$k" add -A && git -C "$k" commit -q -m "kernel change"
mutants_run --resume 02 > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume after a kernel change: rc=$?"; }
[ -e "$T/mout/mutants/02-hangs/seen.diff" ] || fail "--resume kept 02 after a kernel change"
# a block-batch test that runs kublk: a change to the ublk directory runs
# it again
printf '# runs ../ublk/kublk\nexit 0\n' > "$k/tools/testing/selftests/block-batch/test_x_01.sh"
git -C "$k" add -A && git -C "$k" commit -q -m "x_01 runs kublk"
mutants_run --resume 02 > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume, x_01 with kublk: rc=$?"; }
rm -rf "$T/mout/mutants/02-hangs/"
echo 'exit 0' > "$k/tools/testing/selftests/ublk/test_z_02.sh"
git -C "$k" add -A && git -C "$k" commit -q -m "another ublk test"
mutants_run --resume 02 > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume after a ublk test: rc=$?"; }
[ ! -e "$T/mout/mutants/02-hangs/seen.diff" ] ||
	fail "--resume ran 02, whose test runs kublk, again after a ublk test was added"
echo 'int kublk;' > "$k/tools/testing/selftests/ublk/kublk.c"
git -C "$k" add -A && git -C "$k" commit -q -m "kublk change"
mutants_run --resume 02 > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume after a kublk change: rc=$?"; }
[ -e "$T/mout/mutants/02-hangs/seen.diff" ] ||
	fail "--resume kept 02, whose test runs kublk, after a change to kublk's source"
# with --ublk in the options, whole groups of ublk tests run: another
# ublk test voids the outcome
mutants_run --resume 02 -- --ublk null > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume -- --ublk null: rc=$?"; }
rm -rf "$T/mout/mutants/02-hangs/"
echo 'exit 0' > "$k/tools/testing/selftests/ublk/test_z_03.sh"
git -C "$k" add -A && git -C "$k" commit -q -m "a third ublk test"
mutants_run --resume 02 -- --ublk null > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume -- --ublk null, after a ublk test: rc=$?"; }
[ -e "$T/mout/mutants/02-hangs/seen.diff" ] ||
	fail "--resume kept 02, run with --ublk, after a ublk test was added"
# the guest's harness here: a configuration fragment
rm -rf "$T/mout/mutants/02-hangs/"
mkdir -p "$top/configs" && echo 'CONFIG_X=y' > "$top/configs/x.config"
mutants_run --resume 02 > "$T/table" 2> "$T/err" ||
	{ cat "$T/table" "$T/err"; fail "mutants.sh --resume after a config change: rc=$?"; }
[ -e "$T/mout/mutants/02-hangs/seen.diff" ] || fail "--resume kept 02 after a change to configs/"
rm -r "$top/configs"
# nothing to judge (no kselftest ran): not kept
sed 's|^int c;|int c; /* MUTANT_NOVERDICT */|' "$k/block/blk-core.c" > "$T/nv.c"
cp "$k/block/blk-core.c" "$T/orig.c" && cp "$T/nv.c" "$k/block/blk-core.c"
{
	printf 'Mutant: nothing to judge\nTests: test_x_01.sh\nExpect: fail\n\n'
	git -C "$k" diff
} > "$md/09-noverdict.patch"
cp "$T/orig.c" "$k/block/blk-core.c"
mutants_run --resume 09 > "$T/table" 2> "$T/err" &&
	{ cat "$T/table"; fail "a mutant with nothing to judge passed the run"; }
grep -q '^| 09-noverdict | .* | error | NO |' "$T/table" || { cat "$T/table"; fail "09-noverdict: not an error"; }
[ ! -e "$T/mout/mutants/09-noverdict.outcome" ] || fail "an outcome with nothing to judge was kept"
rm "$md/09-noverdict.patch"
clean_at_series
echo "ok: --resume keeps the outcomes of the same files, mutant and options, and only those"

# Expectation not met: a not-caught one that is caught is fine, a fail one
# that passes is not.
sed -i 's/^Expect: not-caught/Expect: fail/' "$md/03-proved.patch"
sed -i 's/^Expect: fail/Expect: not-caught\nWhy: proved elsewhere/' "$md/01-caught.patch"
# (and mutants named by NN, by name and by file name)
mutants_run 01 02-hangs 03-proved.patch > "$T/table" 2> "$T/err" &&
	{ cat "$T/table"; fail "a missed mutant passed the run"; }
grep -q '^| 03-proved | .* | fail | NOT CAUGHT | NO |' "$T/table" || fail "03-proved: not NO"
grep -q '^| 01-caught | .* | not-caught | caught (fail) | yes (caught after all) |' "$T/table" ||
	fail "01-caught: a catch of a not-caught mutant is not reported as fine"
clean_at_series
echo "ok: a missed mutant fails the run, an unexpected catch does not"

# A mutant that does not apply: refused before anything is tested.
sed 's|^-int c;|-int zz;|' "$md/02-hangs.patch" > "$md/04-stale.patch"
rm -rf "$T/mout"
expect_fail "mutant 04-stale does not apply to the series" mutants_run 01 04-stale
[ ! -e "$T/mout/mutants/01-caught" ] || fail "a mutant was tested although 04-stale does not apply"
clean_at_series
rm "$md/04-stale.patch"

# Malformed headers.
grep -v '^Why:' "$md/01-caught.patch" > "$md/05-nowhy.patch"
expect_fail "mutant 05-nowhy: 'Expect: not-caught' needs a 'Why:' line" mutants_run --list
rm "$md/05-nowhy.patch"
grep -v '^Tests:' "$md/02-hangs.patch" > "$md/06-notests.patch"
expect_fail "mutant 06-notests: no 'Tests:' header line" mutants_run 06
rm "$md/06-notests.patch"
sed 's/^Expect: .*/Expect: maybe/' "$md/02-hangs.patch" > "$md/07-maybe.patch"
expect_fail "'Expect: maybe' is not fail, stall or not-caught" mutants_run 07-maybe.patch
rm "$md/07-maybe.patch"

# The keys a run writes are those of the series it applied at its start,
# even when another command applies the series to the same tree while it
# runs: after the tree is back, --resume keeps all three outcomes.
rm -rf "$T/mout"
orig=$(git -C "$k" rev-parse HEAD)
BB_TEST_MOVE_SERIES=$k mutants_run 01 02 03 > "$T/table" 2> "$T/err"
[ "$(git -C "$k" rev-parse HEAD)" != "$orig" ] ||
	fail "the stub did not move the series' HEAD"
git -C "$k" reset -q --hard "$orig"
mutants_run --resume 01 02 03 > "$T/table" 2> "$T/err"
grep -q '^3 of them kept from earlier runs' "$T/table" ||
	{ cat "$T/table"; fail "keys followed the series' HEAD while it moved, not the series the run applied"; }
clean_at_series
echo "ok: another application of the series during a run leaves its keys as they were"

# --- the real mutants against the cached applied series (read only) ---------
tree=$(cached_base "$cache")
if ! git -C "$tree" rev-parse -q --verify refs/heads/block-batch > /dev/null 2>&1; then
	echo "note: no applied series in $tree yet: apply check left out"
	exit 0
fi
# Stale when patches/ or a file a mutant touches changed after the series
# was applied there (the committer date of its HEAD).
applied=$(git -C "$tree" log -1 --format=%ct refs/heads/block-batch)
mapfile -t paths < <(echo patches; sed -n 's|^+++ b/||p' "$TOP"/tests/mutants/*.patch | sort -u)
if ! git -C "$TOP" rev-parse -q --verify HEAD > /dev/null 2>&1; then
	echo "note: $TOP is not a git checkout: cannot tell whether $tree is current; apply check left out"
	exit 0
fi
if [ -n "$(git -C "$TOP" status --porcelain -- "${paths[@]}")" ]; then
	changed=$(date +%s)
else
	changed=$(git -C "$TOP" log -1 --format=%ct -- "${paths[@]}")
fi
if [ "${changed:-0}" -gt "$applied" ]; then
	echo "note: the series changed after $tree was applied: apply check left out"
	exit 0
fi
GIT_INDEX_FILE=$T/index git -C "$tree" read-tree refs/heads/block-batch ||
	fail "cannot read branch block-batch of $tree"
for p in "$TOP"/tests/mutants/*.patch; do
	GIT_INDEX_FILE=$T/index git -C "$tree" apply --cached --check "$p" 2> "$T/err" ||
		{ cat "$T/err"; fail "$(basename "$p") does not apply to the series in $tree"; }
done
echo "ok: all $n mutants apply to the applied series in $tree"
