#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation testing: does a test catch each guarantee of the series breaking?
# Each tests/mutants/NN-name.patch is a small 'git diff' against the applied
# series that breaks one guarantee, after a header of "Key: value" lines
# (git apply ignores the text before the first "diff --git"):
#     Mutant: the guarantee it breaks, one line
#     Tests:  test_x_01.sh,test_y_01.sh (the kselftests that guard it; the
#             kernel's ublk selftests as ublk:test_null_01.sh)
#     Expect: fail | stall | not-caught
#     Why:    (not-caught only) what covers it instead, e.g. a litmus test
# For each mutant this applies it to one worktree of the applied series,
# $BB_CACHE/mutant-trees/linux (its build directory next to it, so that one
# mutant after another rebuilds incrementally), runs
#     scripts/test.sh --tree TREE --tests TESTS
# and sorts the outcome:
#   caught (fail)   a kselftest, the guest's kernel log check or a merge
#                   ratio comparison with the base kernel failed
#   caught (stall)  a test's watchdog reported "FAIL: stalled", the
#                   kselftest runner timed a test out, the hung task detector
#                   fired, or the guest did not finish
#   NOT CAUGHT      its kselftests passed (or some passed, some skipped)
#   skipped         its kselftests all skipped: nothing was checked
#   build failed    the mutant does not build: a broken mutant, not a catch
#   error           nothing to judge by (no kselftest ran)
# and prints a Markdown table.  Full logs: $BB_OUT/mutants/NAME.log (the
# run's own output directory, guest log included: $BB_OUT/mutants/NAME/).
# The mutant worktree is back at the clean series when this exits.
# Each mutant's outcome is also kept in $BB_OUT/mutants/NAME.outcome, with
# what it depends on: the applied series' files outside
# tools/testing/selftests and Documentation/, in the selftest directories
# of its own tests and of the tools they run (kublk for a block-batch test
# that uses it) those tests and every file that is not a test script, the
# kselftest runner, what shapes the guest here (configs/, scripts/guest/, and
# blktests/ when the options name blktests cases), the mutant's blob id
# and the options it ran with (not the series' commit: each application
# of patches/ makes new commits of the same files; not its whole tree,
# nor the other tests: a test added for one mutant would void every
# outcome).
# --resume takes a mutant's outcome from there instead of running it again
# when all of these are the same, so that a run of the whole table that
# was stopped goes on where it stopped and still prints the whole table.
# Only a caught or NOT CAUGHT outcome is kept: a build that failed, or a
# run with nothing to judge, runs again.
#
# usage: mutants.sh [--list] [--resume] [NAME...] [-- TEST.SH-OPTION...]
#   --list  name, expectation, tests and description of each mutant, no build
#   --resume  keep the outcomes of an earlier run with the same key (above:
#           files, mutant, options); the table says how many, since when
#   NAME    the mutants to run or list: file name without .patch, or its NN
#           (default: all)
#   --      pass the rest to scripts/test.sh, e.g. -- --smp 4
# Environment: BB_MUTANTS_DIR (default tests/mutants)
# Exit status: 0 only if every mutant behaved as its Expect: says (fail or
# stall: caught either way; not-caught: NOT CAUGHT, or caught after all),
# 1 otherwise, 2 usage.

set -u
. "$(dirname "$0")/lib.sh"

usage() { bb_help "$0" usage; }

mdir=${BB_MUTANTS_DIR:-$BB_TOP/tests/mutants}
list=0
resume=0
names=()
extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--list) list=1; shift ;;
	--resume) resume=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; extra=("$@"); break ;;
	-*) usage >&2; exit 2 ;;
	*) names+=("$1"); shift ;;
	esac
done

# hdr PATCH KEY -- the value of the "KEY: value" line in PATCH's header
hdr() {
	sed -n -e '/^diff --git /q' -e "s/^$2:[[:space:]]*//p" "$1" | head -n1
}

# --- the mutants: pick, and check their headers before anything else ------
[ -d "$mdir" ] || die "no mutant directory $mdir"
all=()
for p in "$mdir"/*.patch; do
	[ -f "$p" ] && all+=("$(basename "$p" .patch)")
done
[ ${#all[@]} -gt 0 ] || die "no mutants (*.patch) in $mdir"

# resolve NAME -- the mutant NAME (or NAME.patch, or its NN) stands for
resolve() {
	local n=${1%.patch} m hits=()

	n=${n##*/}
	for m in "${all[@]}"; do
		[ "$m" = "$n" ] && { echo "$m"; return 0; }
		[ "${m%%-*}" = "$n" ] && hits+=("$m")
	done
	[ ${#hits[@]} -eq 1 ] && { echo "${hits[0]}"; return 0; }
	return 1
}

sel=()
if [ ${#names[@]} -eq 0 ]; then
	sel=("${all[@]}")
else
	for n in "${names[@]}"; do
		m=$(resolve "$n") ||
			die "no mutant '$n' in $mdir (mutants: ${all[*]})"
		case " ${sel[*]} " in *" $m "*) ;; *) sel+=("$m") ;; esac
	done
fi

declare -A desc=() tests=() expect=()
for m in "${sel[@]}"; do
	p=$mdir/$m.patch
	desc[$m]=$(hdr "$p" Mutant)
	tests[$m]=$(hdr "$p" Tests | tr -d '[:space:]')
	expect[$m]=$(hdr "$p" Expect)
	[ -n "${desc[$m]}" ] || die "mutant $m: no 'Mutant:' header line in $p"
	[ -n "${tests[$m]}" ] || die "mutant $m: no 'Tests:' header line in $p"
	for t in ${tests[$m]//,/ }; do
		[[ $t =~ ^(ublk:)?test_[a-z0-9_]+\.sh$ ]] ||
			die "mutant $m: '$t' in 'Tests:' is not a kselftest name (test_x_NN.sh, ublk:test_x_NN.sh)"
	done
	case ${expect[$m]} in
	fail|stall) ;;
	not-caught)
		[ -n "$(hdr "$p" Why)" ] ||
			die "mutant $m: 'Expect: not-caught' needs a 'Why:' line (what covers it instead)" ;;
	*) die "mutant $m: 'Expect: ${expect[$m]}' is not fail, stall or not-caught" ;;
	esac
	grep -q '^diff --git ' "$p" || die "mutant $m: $p has no 'diff --git'"
done

if [ $list -eq 1 ]; then
	for m in "${sel[@]}"; do
		printf '%-30s %-10s  %-40s  %s\n' "$m" "${expect[$m]}" \
			"${tests[$m]}" "${desc[$m]}"
	done
	exit 0
fi

# --- the mutant tree ----------------------------------------------------------
need_tools git sed awk grep flock
grep -q -- '--tree)' "$BB_TOP/scripts/test.sh" ||
	die "scripts/test.sh has no --tree option: it cannot test a mutant tree"

mkdir -p "$BB_CACHE/mutant-trees" "$BB_OUT/mutants" ||
	die "cannot create $BB_CACHE/mutant-trees or $BB_OUT/mutants"
exec 9> "$BB_CACHE/mutant-trees/lock"
flock -n 9 || die "another scripts/mutants.sh is using $BB_CACHE/mutant-trees"

tree=$("$BB_TOP/scripts/apply-series.sh" 9>&-) || die "cannot apply the series"
head=$(git -C "$tree" rev-parse --verify HEAD) || die "no HEAD in $tree"
# the series' files outside the selftests and Documentation/ (which no
# kernel build reads), as one id
ktree=$(git -C "$tree" ls-tree -r "$head" |
	grep -v -e '	tools/testing/selftests/' -e '	Documentation/' |
	git hash-object --stdin) || die "cannot list the files of $tree"
# what shapes the guest here: the kernel's configuration fragments, the
# guest's scripts, and the blktests cases when the options run some
hdirs=(configs scripts/guest)
case " ${extra[*]} " in *" --blktests "*) hdirs+=(blktests) ;; esac
harness=$(cd "$BB_TOP" && find "${hdirs[@]}" -type f -print0 2>/dev/null |
	sort -z | xargs -0 -r sha1sum | git hash-object --stdin) ||
	die "cannot read ${hdirs[*]} in $BB_TOP"
mtree=$BB_CACHE/mutant-trees/linux

bb_cache_worktree "$tree" "$mtree" "$head" mutant

# reset_tree -- the mutant tree back to the clean series
reset_tree() {
	git -C "$mtree" checkout -q -f --detach "$head" &&
	git -C "$mtree" clean -q -f -d -x
}
reset_tree || die "cannot reset $mtree to $head"
trap 'reset_tree ||
	warn "could not reset $mtree: git -C $mtree checkout -f --detach $head"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Every mutant must apply before any is built.
short=$(git -C "$tree" rev-parse --short "$head")
for m in "${sel[@]}"; do
	git -C "$mtree" apply --check "$mdir/$m.patch" 2> "$BB_OUT/mutants/apply.err" ||
		die "mutant $m does not apply to the series ($short):"$'\n'"$(cat "$BB_OUT/mutants/apply.err")"
done
rm -f "$BB_OUT/mutants/apply.err"

# --- run --------------------------------------------------------------------
# classify LOG DIR -- one of the outcomes above, for test.sh's output LOG
# and its output directory DIR (guest.log.txt: the guest's console)
classify() {
	local log=$1 dir=$2 glog=$2/guest.log.txt

	if grep -Eq '^build [0-9]+s rc=[1-9]' "$dir/stages.txt" 2>/dev/null ||
	   grep -Eq '^not ok [0-9]+ guest: build' "$log"; then
		echo "build failed"
	elif grep -Eq '^(# )+[a-z0-9_]+: FAIL: stalled' "$log" "$glog" 2>/dev/null ||
	     grep -Eq '^not ok [0-9]+ guest: finished and powered off' "$log" ||
	     grep -Eq '^not ok [0-9]+ selftests: .* # (TIMEOUT|stalled)' "$glog" 2>/dev/null ||
	     grep -Eq 'blocked for more than [0-9]+ seconds' "$glog" 2>/dev/null; then
		echo "caught (stall)"
	elif grep -Eq '^not ok [0-9]+ (guest: (block-batch|ublk): |guest: kernel log|base: .* merge ratio, series)' \
		"$log"; then
		echo "caught (fail)"
	elif grep -Eq '^ok [0-9]+ guest: (block-batch|ublk): [^ ]+$' "$log"; then
		echo "NOT CAUGHT"
	elif grep -Eq '^ok [0-9]+ guest: (block-batch|ublk): .* # SKIP' "$log"; then
		echo "skipped"
	else
		echo "error"
	fi
}

# verdict EXPECT RESULT -- "yes..." when RESULT is what EXPECT allows
verdict() {
	case $1/$2 in
	fail/"caught (fail)"|stall/"caught (stall)"|not-caught/"NOT CAUGHT") echo yes ;;
	fail/"caught (stall)"|stall/"caught (fail)") echo "yes (caught, not as a $1)" ;;
	not-caught/caught*) echo "yes (caught after all)" ;;
	*) echo NO ;;
	esac
}

# tap_short LOG -- the failing and skipped TAP lines of LOG and the first
# two FAIL: diagnostics of the kselftests, short, for a table cell
tap_short() {
	{
		sed -n -e 's/^not ok [0-9]* //p' \
		       -e 's/^ok [0-9]* \(.*\) # SKIP.*/SKIP \1/p' "$1"
		sed -n 's/^\(# \)\{1,\}\([a-z0-9_]*: FAIL: \)/\2/p' "$1" | head -n 2
	} | paste -sd ';' - | sed -e 's/;/; /g' -e 's/|/\\|/g' | cut -c1-200
}

# dir_key DIR [TEST...] -- one id for what tests of the selftest directory
# DIR depend on: its scripts TEST..., and every file there that is not a
# test script, test_GROUP_NN.sh (helpers such as test_common.sh, Makefile,
# config, settings, kublk's sources); "none" without that directory
dir_key() {
	local d=$1

	shift
	git -C "$tree" rev-parse --verify -q "$head:tools/testing/selftests/$d" \
		> /dev/null || { echo none; return; }
	git -C "$tree" ls-tree -r "$head:tools/testing/selftests/$d" |
		awk -F'\t' -v want=" $* " '{ n = $2; sub(/.*\//, "", n) }
			n !~ /^test_[a-z0-9]+_[0-9]+\.sh$/ || index(want, " " $2 " ")' |
		git hash-object --stdin
}

# outcome_key M -- what an outcome of mutant M holds for, a line each: the
# series' files outside tools/testing/selftests and Documentation/, for
# each selftest directory its tests come from or run tools of the dir_key
# of its tests there, the kselftest runner, the guest's harness here, the
# mutant's blob id and the options given to test.sh.  A test added to or changed in a
# selftest directory leaves the outcomes of mutants that do not run it
# (but with --ublk in the options, any change to the ublk selftests
# counts: that option runs whole groups of them).
outcome_key() {
	local t d l dirs='' bb='' ub=''

	for t in ${tests[$1]//,/ }; do
		case $t in
		ublk:*) d=ublk ub+=" ${t#ublk:}" ;;
		*)
			d=block-batch bb+=" $t"
			# a block-batch test that runs kublk depends on it too
			git -C "$tree" show "$head:tools/testing/selftests/block-batch/$t" \
				2>/dev/null | grep -q kublk && dirs+=" ublk" ;;
		esac
		case " $dirs " in *" $d "*) ;; *) dirs+=" $d" ;; esac
	done
	echo "kernel $ktree"
	echo "runner $(git -C "$tree" rev-parse --verify -q \
		"$head:tools/testing/selftests/kselftest" || echo none)"
	echo "harness $harness"
	for d in $dirs; do
		case $d in ublk) l=$ub ;; *) l=$bb ;; esac
		# shellcheck disable=SC2086
		echo "selftests/$d $(dir_key "$d" $l)"
	done
	# test.sh's --ublk runs whole groups of the ublk selftests: all of it
	case " ${extra[*]} " in
	*" --ublk "*)
		echo "selftests/ublk-groups $(git -C "$tree" rev-parse --verify -q \
			"$head:tools/testing/selftests/ublk" || echo none)" ;;
	esac
	echo "mutant $(git hash-object "$mdir/$1.patch")"
	echo "options ${extra[*]}"
}

declare -A result=() failing=() ran=() took=()
i=0 kept=0 since=
for m in "${sel[@]}"; do
	i=$((i + 1))
	out=$BB_OUT/mutants/$m.outcome
	key=$(outcome_key "$m")
	nk=$(printf '%s\n' "$key" | wc -l)
	if [ $resume -eq 1 ] && [ -f "$out" ] &&
	   [ "$(head -n "$nk" "$out")" = "$key" ]; then
		# then: date, result, seconds, tests run, failing TAP lines
		mapfile -t o < <(sed -n "$((nk + 1)),$((nk + 5))p" "$out")
		if [ ${#o[@]} -ge 4 ] && [ -n "${o[1]}" ]; then
			result[$m]=${o[1]} took[$m]=${o[2]} ran[$m]=${o[3]}
			failing[$m]=${o[4]:-}
			kept=$((kept + 1))
			[ -n "$since" ] && [[ ${o[0]} > $since ]] || since=${o[0]}
			info "mutant $i/${#sel[@]} $m: ${result[$m]}, kept from ${o[0]} (--resume)"
			continue
		fi
	fi
	rm -f "$out"
	reset_tree || die "cannot reset $mtree to $head"
	git -C "$mtree" apply "$mdir/$m.patch" 2> "$BB_OUT/mutants/apply.err" ||
		die "mutant $m does not apply:"$'\n'"$(cat "$BB_OUT/mutants/apply.err")"
	# Tests that the series does not have (yet) are left out, loudly.
	run=()
	for t in ${tests[$m]//,/ }; do
		case $t in
		ublk:*) f=$mtree/tools/testing/selftests/ublk/${t#ublk:} ;;
		*) f=$mtree/tools/testing/selftests/block-batch/$t ;;
		esac
		if [ -f "$f" ]; then
			run+=("$t")
		else
			warn "mutant $m: $t is not in the series: left out"
		fi
	done
	ran[$m]=$(IFS=,; echo "${run[*]}")
	log=$BB_OUT/mutants/$m.log
	dir=$BB_OUT/mutants/$m
	rm -rf "$dir"
	mkdir -p "$dir" || die "cannot create $dir"
	if [ ${#run[@]} -eq 0 ]; then
		echo "no test of ${tests[$m]} is in the series" > "$log"
		result[$m]=error failing[$m]="none of its tests is in the series" took[$m]=0
		continue
	fi
	info "mutant $i/${#sel[@]} $m: ${desc[$m]}"
	info "  tests ${ran[$m]}, expected: ${expect[$m]}, log: $log"
	{
		echo "# mutant: $m (${desc[$m]})"
		echo "# expect: ${expect[$m]}, tests: ${ran[$m]}"
		echo "# series: $head, tree: $mtree"
		git -C "$mtree" diff --stat | sed 's/^/# /'
	} > "$log"
	t0=$(date +%s)
	BB_OUT=$dir "$BB_TOP/scripts/test.sh" --tree "$mtree" --tests "${ran[$m]}" \
		"${extra[@]}" >> "$log" 2>&1 9>&-
	rc=$?
	took[$m]=$(( $(date +%s) - t0 ))
	echo "# test.sh exit status $rc after ${took[$m]}s" >> "$log"
	rm -f "$dir/nvme.img" "$dir/nvme-ns2.img"
	result[$m]=$(classify "$log" "$dir")
	failing[$m]=$(tap_short "$log")
	info "  ${result[$m]} (test.sh rc=$rc, ${took[$m]}s)"
	# an interrupted test.sh, a failed build or nothing to judge: no
	# outcome to keep
	keep=1
	[ $rc -lt 128 ] || keep=0
	case ${result[$m]} in
	"build failed"|error) keep=0 ;;
	esac
	[ $keep -eq 0 ] || {
		echo "$key"
		date -u +%Y-%m-%dT%H:%M:%SZ
		printf '%s\n' "${result[$m]}" "${took[$m]}" "${ran[$m]}" "${failing[$m]}"
	} > "$out"
done
reset_tree || die "cannot reset $mtree to $head"

bad=0
echo "| mutant | tests | expected | result | as expected | failing TAP lines |"
echo "|---|---|---|---|---|---|"
for m in "${sel[@]}"; do
	v=$(verdict "${expect[$m]}" "${result[$m]}")
	[ "$v" = NO ] && bad=$((bad + 1))
	echo "| $m | ${ran[$m]//,/, } | ${expect[$m]} | ${result[$m]} | $v | ${failing[$m]:--} |"
done
echo
[ $kept -eq 0 ] ||
	echo "$kept of them kept from earlier runs of the same files and options (--resume), since $since"
if [ $bad -eq 0 ]; then
	echo "${#sel[@]} mutant(s), all as expected"
else
	echo "${#sel[@]} mutant(s), $bad not as expected"
fi
[ $bad -eq 0 ]
