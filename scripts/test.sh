#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The block-batch test command.  On a fresh Debian 12 machine it installs
# what it needs, fetches the pinned base, applies the series, builds one
# kernel, boots it under QEMU TCG, runs the block-batch kselftests in the
# guest through the kselftest runner, checks the guest's kernel log, and runs
# the host-side tests of the tooling (tests/host).  Prints TAP and ends with
#     N passed, N failed, N skipped
# Exit status: 0 only if nothing failed.
#
# usage: test.sh [--kdir DIR | --tree DIR] [--host-only] [--tests a,b]
#                [--blktests LIST] [--ublk GROUPS] [--smp N] [--load N]
#                [--full] [--no-base] [-f FRAGMENT]...
#   --kdir DIR   test the series on your own kernel tree (a new branch)
#   --tree DIR   DIR already has the series (and maybe more) applied: no
#                host tests, fetch, apply or per-patch check; used by
#                scripts/mutants.sh
#   --host-only  only the host-side tooling tests (no kernel build)
#   --tests      only these kselftests (e.g. test_switch_01.sh), and the
#                kernel's ublk selftests as ublk:test_loop_01.sh
#   --blktests L the blktests cases to run after them (e.g. block/053),
#                "none" for none; default: all of blktests/tests/block in
#                both tiers, none with --tests
#   --ublk G     the groups (or group_NN tests) of the kernel's own ublk
#                selftests to run after the block-batch ones, on the series
#                and on the base kernel (e.g. null,loop_06), "none" for none;
#                default: UBLK_CI below in the CI tier, every group with
#                --full, none with --tests.  They run under
#                scripts/guest/ublk-watch, judged by progress.  Needs
#                liburing 2.4 or later from Debian sid
#                (scripts/install-liburing.sh); without it they are skipped
#   --full       the long tier: every kselftest (the CI tier leaves out
#                FULL_ONLY below), every disk, and every stress loop runs to
#                its own count within 300 s, where the CI tier stops each at
#                STRESS_MAX cycles or 60 s (BB_STRESS_SECS in common_stress.sh);
#                then each posting booted on its own with its tests
#                (scripts/boot-postings.sh)
#   --load N     N CPU hogs in their own session during the guest stages, to
#                check that no verdict depends on the machine's load
#   --no-base    skip the base kernel (built with the same config and booted
#                in the same run, to compare merging and the ublk selftests'
#                verdicts against it)
#   -f FRAGMENT  extra kernel config fragment, e.g. configs/rt.config or
#                configs/kcsan.config (own build directory linux-obj-NAME)

set -u
. "$(dirname "$0")/lib.sh"
. "$BB_TOP/scripts/testlib/guest.sh"
. "$BB_TOP/scripts/testlib/parse.sh"
. "$BB_TOP/scripts/testlib/base.sh"
. "$BB_TOP/scripts/testlib/skips.sh"
argv=("$0" "$@")

usage() {
	echo "usage: $0 [--kdir DIR | --tree DIR] [--host-only] [--tests LIST] [--blktests LIST] [--ublk GROUPS] [--smp N] [--load N] [--full] [--no-base] [-f FRAGMENT]..." >&2
	exit 2
}
kdir=${KDIR:-} ptree='' host_only=0 tests= blktests_opt= ublk_opt= smp=2 load=0 full=0 frags=() objname=obj base_cmp=1
frag_names=
while [ $# -gt 0 ]; do
	case $1 in
	--kdir|--tree|--tests|--blktests|--ublk|--smp|--load|-f)
		[ $# -ge 2 ] || { echo "$0: $1 needs a value" >&2; usage; } ;;
	esac
	case $1 in
	--kdir) kdir=$2; shift 2 ;;
	--tree) ptree=$2; shift 2 ;;
	--host-only) host_only=1; shift ;;
	--tests) tests=$2; shift 2 ;;
	--blktests) blktests_opt=$2; shift 2 ;;
	--ublk) ublk_opt=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--load) load=$2; shift 2 ;;
	--no-base) base_cmp=0; shift ;;
	--full) full=1; shift ;;
	-f)
		[ -r "$2" ] || die "config fragment '$2' not found"
		frags+=(-f "$(realpath "$2")"); objname+=-$(basename "$2" .config)
		frag_names+=${frag_names:+ }$(basename "$2" .config); shift 2 ;;
	-h|--help) bb_help "$0"; exit 0 ;;
	*) echo "$0: unknown argument '$1'" >&2; usage ;;
	esac
done
# Check every argument before anything is fetched or built.
[[ $smp =~ ^[1-9][0-9]*$ ]] && [ "$smp" -le 8 ] || die "--smp '$smp': a number of CPUs, 1 to 8"
[[ $load =~ ^[0-9]+$ ]] && [ "$load" -le 64 ] || die "--load '$load': a number of CPU hogs, 0 to 64"
[ -z "$kdir" ] || [ -z "$ptree" ] || die "--kdir and --tree exclude each other"
skips_entries "$(skips_file)" > /dev/null || die "$(skips_file): malformed (above)"
if [ -n "$kdir" ]; then
	[ -f "$kdir/Makefile" ] && [ -d "$kdir/block" ] ||
		die "--kdir '$kdir' is not a kernel source tree"
	git -C "$kdir" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
		die "--kdir '$kdir' is not a git repository with a commit (the series goes on a new branch of it)"
fi
if [ -n "$ptree" ]; then
	[ -f "$ptree/Makefile" ] && [ -d "$ptree/block" ] ||
		die "--tree '$ptree' is not a kernel source tree"
	[ -d "$ptree/tools/testing/selftests/block-batch" ] ||
		die "--tree '$ptree' does not have the series applied"
	ptree=$(realpath "$ptree")
fi
# --tests: block-batch's kselftests, and the kernel's ublk selftests as
# ublk:test_x_NN.sh (checked against the tree once it is there)
for t in ${tests//,/ }; do
	case $t in
	ublk:*)
		[[ $t =~ ^ublk:test_[a-z]+_[0-9]+\.sh$ ]] ||
			die "--tests: '$t' is no ublk selftest name (ublk:test_null_01.sh)" ;;
	*)
		[ -f "$BB_TOP/tools/testing/selftests/block-batch/$t" ] ||
			die "--tests: no kselftest '$t' in tools/testing/selftests/block-batch" ;;
	esac
done
if [ -n "$blktests_opt" ] && [ "$blktests_opt" != none ]; then
	for t in ${blktests_opt//,/ }; do
		[[ $t =~ ^block/[0-9]{3}$ ]] && [ -f "$BB_TOP/blktests/tests/$t" ] ||
			die "--blktests: no case '$t' in blktests/tests (e.g. block/053)"
	done
fi
# BB_BLKTESTS: a blktests checkout whose ./check runs the cases in the guest
[ -z "${BB_BLKTESTS:-}" ] || [ -x "$BB_BLKTESTS/check" ] ||
	die "BB_BLKTESTS=$BB_BLKTESTS: no blktests ./check there"
# The kernel's ublk selftests in the CI tier, by group (batch) or by test
# (loop_06): UBLK_F_BATCH_IO (batch), every data copy mode without data
# (null: page copy, zero copy, user copy), user copy with fio verify
# (loop_06), short and failed completions in every mode (loop_09) and what
# a short completion requeues (loop_10): the completion paths the ublk
# patch changes; and a quiesce while the server holds requests
# (recover_05), for the kublk fix.  Every group with --full; --ublk picks
# others.
UBLK_CI="batch,null,loop_06,loop_09,loop_10,recover_05"
# All groups of v7.3's ublk selftests; the tree's own are checked again
# once it is there (a --kdir tree may have others).
UBLK_GROUPS="generic batch null loop integrity recover stripe part params shmemzc stress"
if [ -n "$ublk_opt" ] && [ "$ublk_opt" != none ]; then
	for g in ${ublk_opt//,/ }; do
		[[ $g =~ ^([a-z]+)(_[0-9]+)?$ ]] &&
		{ [ -n "$kdir$ptree" ] || [[ " $UBLK_GROUPS " == *" ${BASH_REMATCH[1]} "* ]]; } ||
			die "--ublk: '$g' is no group (or group_NN test) of the ublk selftests ($UBLK_GROUPS)"
	done
fi
# The CI tier (no --full, no --tests) runs the kselftests that catch a
# mutant no other test catches (tests/mutants/README.md), and the watchdog's
# own test; these run only with --full, to keep a cold run within an hour on
# the slowest 2-core machine measured (docs/testing.md, "What a run costs"):
#   test_cgroup_01, test_integrity_01/02, test_mixed_01 and test_switch_01
#     catch no mutant (data integrity is also verified by drivers_01,
#     merge_01 and complete_01);
#   test_quiesce_01 quiesces a frozen queue only, test_quiesce_02 resets an
#     NVMe controller: neither catches a mutant (01 and 02 are the litmus
#     tests'), and test_quiesce_03 stresses the live-queue quiesce;
#   test_ublk_01 catches mutant 10, a ublk recovery path of the base driver
#     that the kernel's own ublk selftests (recover) exercise too.
FULL_ONLY="test_cgroup_01.sh test_integrity_01.sh test_integrity_02.sh test_mixed_01.sh"
FULL_ONLY+=" test_quiesce_01.sh test_quiesce_02.sh test_switch_01.sh test_ublk_01.sh"
# Stress loops end after this many cycles in the CI tier and with --tests
# (or at their time budget): at least every test's minimum (twice or more
# for those of the CI tier), the same count on a fast and a slow machine.
# --full runs each to its own count.
STRESS_MAX=${BB_STRESS_MAX:-12}
tier=full tests_opt=$tests skip_tier=full
[ -z "$tests" ] || skip_tier=tests
if [ -z "$tests" ] && [ $full -eq 0 ]; then
	skip_tier=ci
	tier=ci
	for t in "$BB_TOP"/tools/testing/selftests/block-batch/test_*_[0-9][0-9].sh; do
		t=${t##*/}
		case " $FULL_ONLY " in *" $t "*) continue ;; esac
		tests+=${tests:+,}$t
	done
fi

# load_start / load_stop -- the --load CPU hogs, in a session of their own
# (a background child is no process group leader, so setsid does not fork:
# $! is the new session's leader and its process group id)
load_pid=
load_start() {
	[ "$load" -gt 0 ] || return 0
	setsid bash -c 'for _ in $(seq "$1"); do (while :; do :; done) & done; wait' \
		bb-load "$load" </dev/null >/dev/null 2>&1 &
	load_pid=$!
	info "--load: $load CPU hogs in process group $load_pid"
}
load_stop() {
	[ -n "$load_pid" ] && kill -- "-$load_pid" 2>/dev/null
	load_pid=
}
trap load_stop EXIT

# stage_progress NAME -- what a long stage has done so far, for the line
# that stage() prints every minute
progress_obj=
stage_progress() {
	local g

	case $1 in
	build*) echo "$(find "$progress_obj" -name '*.o' 2>/dev/null | wc -l) objects in $progress_obj" ;;
	bisect) tail -n 1 "$BB_OUT/bisect.log" 2>/dev/null | cut -c1-120 ;;
	boot+tests) g=$BB_OUT/guest.log ;;&
	boot-base) g=$BB_OUT/guest-base.log ;;&
	boot*)
		echo "$(tr -d '\r' < "$g" | grep -cE '^(not )?ok [0-9]+ selftests: ') tests done;" \
		     "last line: $(tr -d '\r' < "$g" | grep -v '^$' | tail -n 1 | cut -c1-100)" ;;
	esac
}

mkdir -p "$BB_OUT"
: > "$BB_OUT/stages.txt"
t_start=$(date +%s)
n=0 pass=0 fail=0 skip=0
declare -a failed_names=() unexpected_skips=()

# tap RC NAME -- one TAP line; RC 0 pass, 4 skip, else fail.  A skip that
# tests/expected-skips does not name for this run is remembered: finish()
# fails the run on it.
tap() {
	n=$((n + 1))
	case $1 in
	0) pass=$((pass + 1)); echo "ok $n $2" ;;
	4)
		skip=$((skip + 1)); echo "ok $n $2 # SKIP"
		skip_expected "$2" "$skip_tier" "$smp" "$frag_names" ||
			unexpected_skips+=("$2") ;;
	*) fail=$((fail + 1)); failed_names+=("$2"); echo "not ok $n $2" ;;
	esac
}

# check_skips -- the TAP line that fails the run on a skip that
# tests/expected-skips does not name for it
check_skips() {
	local t

	if [ ${#unexpected_skips[@]} -eq 0 ]; then
		tap 0 "skips: none that $(skips_file | sed "s|^$BB_TOP/||") does not expect ($skip skipped)"
		return
	fi
	for t in "${unexpected_skips[@]}"; do
		echo "# unexpected skip: $t"
	done
	tap 1 "skips: ${#unexpected_skips[@]} of $skip not in $(skips_file | sed "s|^$BB_TOP/||") for tier=$skip_tier smp=$smp fragment=${frag_names:-none}"
}

finish() {
	check_skips
	echo "1..$n"
	echo "# stage times (machine: ${BB_CALIBRATION:-not measured}):"
	sed 's/^/#   /' "$BB_OUT/stages.txt"
	echo "#   total $(( $(date +%s) - t_start ))s${estimate:+ (estimated: ${estimate}s)}"
	if [ -n "${BB_META:-}" ]; then
		bb_meta result "$pass passed, $fail failed, $skip skipped"
		bb_meta_end
		sed 's/^/stage: /' "$BB_OUT/stages.txt" >> "$BB_META"
	fi
	[ $fail -eq 0 ] || echo "# failed: ${failed_names[*]}"
	echo "$pass passed, $fail failed, $skip skipped"
	[ $fail -eq 0 ]
	exit $?
}

# ref_secs STAGE COLD|WARM -- a stage's time in seconds on the reference
# machine of scripts/calibrate.sh (factor 1.00): the row of docs/testing.md's
# "What a run costs" table whose first cell starts with STAGE, its "cold,
# reference" or "warm, reference" cell ("about 230" and "92 (once ...)"
# read as 230 and 92).  The table is the one source of these times.
ref_secs() {
	awk -F'|' -v stage="$1" -v col=$([ "$2" = COLD ] && echo 3 || echo 4) '
		/^## What a run costs/ { on = 1; next }
		on && /^## / { exit }
		on && index($2, " " stage) == 1 && match($col, /[0-9]+/) {
			print substr($col, RSTART, RLENGTH); exit
		}' "$BB_TOP/docs/testing.md"
}
# estimate_cold -- true when the build cache is empty
estimate_cold() {
	[ -z "$(ls -A "$CCACHE_DIR" 2>/dev/null)" ]
}
# estimate_what -- what the estimate covers
estimate_what() {
	local w=warm
	estimate_cold && w=cold
	echo "$w, the ${tier} tier$([ $base_cmp -eq 1 ] && echo ", with the base kernel")"
}
# estimate_secs -- this run's expected duration here: the reference stage
# times scaled by the machine factor; only for the CI tier as measured
# (no --tests, --full, --ublk, --blktests, -f, --smp or --load)
estimate_secs() {
	local f secs=0 c=WARM stages st t

	f=$(sed -n 's/.* factor \([0-9.]*\) .*/\1/p' <<< "${BB_CALIBRATION:-}")
	[ -n "$f" ] && [ "$tier" = ci ] && [ $host_only -eq 0 ] &&
	[ -z "$ublk_opt$blktests_opt" ] && [ ${#frags[@]} -eq 0 ] &&
	[ "$smp" = 2 ] && [ "$load" = 0 ] || return 0
	estimate_cold && c=COLD
	stages="build|boot + tests, CI tier"
	[ -n "$ptree" ] || stages+="|host tests|bisect"
	[ $base_cmp -eq 0 ] || stages+="|base kernel"
	while IFS= read -r st; do
		t=$(ref_secs "$st" $c)
		[ -n "$t" ] || return 0
		secs=$(( secs + t ))
	done <<< "${stages//|/$'\n'}"
	awk -v s="$secs" -v f="$f" 'BEGIN { printf "%d", s * f + 0.5 }'
}

echo "TAP version 13"
[ $tier = ci ] && echo "# CI tier: $FULL_ONLY run only with --full"

stage deps "$BB_TOP/scripts/install-deps.sh"
tap $? "host: dependencies installed"
[ $fail -eq 0 ] || finish
# How fast is this machine, and so how long will this take?
bb_meta_begin "$BB_OUT" "${argv[@]}"
bb_meta load "${load} CPU hogs during the guest stages (--load)"
estimate=$(estimate_secs)
echo "# machine: ${BB_CALIBRATION:-not measured (scripts/calibrate.sh failed)}"
[ -z "$estimate" ] || echo "# estimate: about $(( (estimate + 59) / 60 )) min for this run ($(estimate_what)), the reference machine's stage times times the factor (docs/testing.md)"

# --- host-side tests of the tooling (not with --tree: a mutant run) --------
for t in "$BB_TOP"/tests/host/test_*.sh; do
	[ -z "$ptree" ] || break
	name=$(basename "$t" .sh)
	t0=$(date +%s)
	bash "$t" > "$BB_OUT/host-$name.log" 2>&1
	rc=$?
	echo "host-$name $(( $(date +%s) - t0 ))s rc=$rc" >> "$BB_OUT/stages.txt"
	[ $rc -eq 0 ] || sed 's/^/# /' "$BB_OUT/host-$name.log" | tail -n 30
	tap $rc "host: $name"
done
[ $host_only -eq 1 ] && finish

# --- the guest -----------------------------------------------------------
if [ -n "$ptree" ]; then
	tree=$ptree
else
	stage fetch "$BB_TOP/scripts/fetch-base.sh" > "$BB_OUT/base-tree" ||
		{ tap 1 "guest: fetch base"; finish; }
	stage apply "$BB_TOP/scripts/apply-series.sh" ${kdir:+--kdir "$kdir"} \
		> "$BB_OUT/tree" || { tap 1 "guest: apply series"; finish; }
	tree=$(cat "$BB_OUT/tree")
fi
bb_meta "series head" "$(git -C "$tree" log -1 --format='%H %s' 2>/dev/null)"
[ -z "${BB_BLKTESTS:-}" ] ||
	bb_meta blktests "$BB_BLKTESTS $(git -C "$BB_BLKTESTS" log -1 --format='%H %s' 2>/dev/null || echo '(not a git checkout)')"
obj=$(bb_obj_dir "$tree" "$objname")
# The kernel's own ublk selftests: which groups, checked against the tree.
ublk=
if [ -n "$ublk_opt" ]; then
	[ "$ublk_opt" = none ] || ublk=$ublk_opt
elif [ $full -eq 1 ] && [ -z "$tests_opt" ]; then
	ublk=$(ls "$tree"/tools/testing/selftests/ublk/test_*_[0-9][0-9].sh 2>/dev/null |
	       sed 's|.*/test_\([a-z]*\)_[0-9]*\.sh$|\1|' | sort -u | paste -sd,)
elif [ "$tier" = ci ]; then
	ublk=$UBLK_CI
fi
for t in ${tests//,/ }; do
	case $t in
	ublk:*)
		[ -f "$tree/tools/testing/selftests/ublk/${t#ublk:}" ] ||
			die "--tests: $tree has no ublk selftest ${t#ublk:}" ;;
	esac
done
ublk_list=
for g in ${ublk//,/ }; do
	case $g in
	*_[0-9]*) set -- "$tree/tools/testing/selftests/ublk/test_$g.sh" ;;
	*) set -- "$tree"/tools/testing/selftests/ublk/test_"$g"_[0-9][0-9].sh ;;
	esac
	[ -f "$1" ] || die "--ublk: $tree has no ublk selftests in group '$g'"
	for t in "$@"; do ublk_list+=" ${t##*/}"; done
done
progress_obj=$obj
stage build "$BB_TOP/scripts/build.sh" -m "${frags[@]}" "$tree" "$obj" > "$BB_OUT/bzImage.path" ||
	{ tap 1 "guest: build kernel"; finish; }
if [ -z "$ptree" ]; then
	stage bisect "$BB_TOP/scripts/check-series.sh" build "$obj" > "$BB_OUT/bisect.log" 2>&1
	rc=$?
	# info() lines out; die() and warn() lines in
	sed 's/^/# /' "$BB_OUT/bisect.log" |
		awk '!/^# block-batch: / || /^# block-batch: (error|WARNING):/'
	tap $rc "series: each patch builds the objects it touches (W=1, sparse), no new warnings"
fi
# The kernel's ublk selftests go into the guest whenever liburing 2.4 or
# later can be had: test_ublk_01 runs their kublk too.
kublk=1
if ! "$BB_TOP/scripts/install-liburing.sh" > /dev/null; then
	kublk=0
	tap 4 "guest: the kernel's ublk selftests${ublk:+ ($ublk)} and kublk: no liburing 2.4 or later (scripts/install-liburing.sh failed)"
	ublk= ublk_list=
	# and the ublk selftests named in --tests: not installed, so
	# skipped here rather than failed (a mutant that only they guard
	# would otherwise count as caught)
	kept=
	for t in ${tests//,/ }; do
		case $t in
		ublk:*) tap 4 "guest: ublk: ${t#ublk:} (no liburing 2.4 or later)" ;;
		*) kept+=${kept:+,}$t ;;
		esac
	done
	tests=$kept
	[ -n "$tests" ] || [ -z "$tests_opt" ] || { echo "# nothing left to run in the guest"; finish; }
fi
uarg=()
[ $kublk -eq 1 ] && uarg=(-u "$obj")
stage initramfs "$BB_TOP/scripts/mkinitramfs.sh" -m "$obj/modroot" "${uarg[@]}" \
	"$tree" "$BB_OUT/initramfs.cpio.gz" \
	>/dev/null || { tap 1 "guest: initramfs"; finish; }
append="bb.mode=test"
[ -z "$ublk" ] || append+=" bb.ublk=$ublk"
[ -n "$tests" ] && append+=" bb.tests=$tests"
# The series' blktests cases (blktests/tests/block) run after the
# kselftests in both tiers, on the series and on the base kernel; not with
# --tests.
blktests=
if [ -n "$blktests_opt" ]; then
	[ "$blktests_opt" = none ] || blktests=$blktests_opt
elif [ -z "$tests_opt" ]; then
	for t in "$BB_TOP"/blktests/tests/block/[0-9][0-9][0-9]; do
		blktests+=${blktests:+,}block/${t##*/}
	done
fi
[ -z "$blktests" ] || append+=" bb.blktests=$blktests"
guest_tmo=${BB_GUEST_TIMEOUT:-3600}
# A guest whose console says nothing for this long but kernel messages
# (boot.sh -w) is hung, not slow:
# twice the kselftest runner's per-test timeout, after which it prints
# (settings: 600 s; with --full, 3 x the stress time + 300 s); the
# watchdogs of the tests print progress every 30 s besides
guest_silence=${BB_GUEST_SILENCE:-1200}
if [ $full -eq 1 ]; then
	append+=" bb.stress_secs=${BB_FULL_STRESS_SECS:-300}"
	guest_tmo=${BB_GUEST_TIMEOUT:-7200}
	guest_silence=${BB_GUEST_SILENCE:-$((2 * (3 * ${BB_FULL_STRESS_SECS:-300} + 300)))}
else
	append+=" bb.stress_max=$STRESS_MAX"
fi
# The scratch disks (testlib/guest.sh)
guest_disks "$BB_OUT" "$tier" || die "cannot create the scratch disks in $BB_OUT"
load_start
stage boot+tests "$BB_TOP/scripts/boot.sh" -s "$smp" -t "$guest_tmo" -w "$guest_silence" \
	"${disks[@]}" -x "$GUEST_APPEND $append" "$(cat "$BB_OUT/bzImage.path")" \
	"$BB_OUT/initramfs.cpio.gz" "$BB_OUT/guest.log"
boot_rc=$?
load_stop
log=$BB_OUT/guest.log
tr -d '\r' < "$log" > "$log.txt"
sed -n '/^BB-DMESG-BEGIN/,/^BB-DMESG-END/p' "$log.txt" > "$BB_OUT/guest-dmesg.txt"
grep -q '^BB-GUEST-START' "$log.txt"
tap $? "guest: boots and starts the test runner"

# kselftest runner lines: "ok 1 selftests: block-batch: test_x.sh [# SKIP]"
while IFS= read -r line; do
	name=${line#*selftests: }
	name=${name%% # *}
	case $line in
	"not ok "*) tap 1 "guest: $name" ;;
	*"# SKIP"*) tap 4 "guest: $name" ;;
	*) tap 0 "guest: $name" ;;
	esac
done < <(grep -E '^(not )?ok [0-9]+ selftests: ' "$log.txt")
# Per-test diagnostics go into the TAP stream as comments.
grep -E '^# ' "$log.txt" | grep -v '^# dmesg' | head -n 200
# Each test's duration, longest first: where the guest stage's time goes.
test_durations "$log.txt" | sort -rn > "$BB_OUT/durations.txt"
echo "# longest tests (s): $(head -n 8 "$BB_OUT/durations.txt" |
	awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }')"

grep -qE '^(not )?ok [0-9]+ selftests: ' "$log.txt"
tap $? "guest: the kselftest runner ran tests"
if [ -n "$ublk" ]; then
	nr_want=$(echo $ublk_list | wc -w)
	# each test once: one named by --tests and by its --ublk group runs twice
	nr_ran=$(ublk_results "$log.txt" |
		awk -v l=" $ublk_list " 'index(l, " " $1 " ") && !seen[$1]++ { n++ } END { print n + 0 }')
	[ "$nr_ran" -eq "$nr_want" ]
	tap $? "guest: the kernel's ublk selftests ran ($ublk: $nr_ran of $nr_want)"
fi

if [ -n "$blktests" ]; then
	while IFS='|' read -r st name; do
		case $st in
		passed) tap 0 "guest: blktests $name" ;;
		failed) tap 1 "guest: blktests $name" ;;
		"not run") tap 4 "guest: blktests $name" ;;
		"#") echo "#   $name" ;;
		esac
	done < <(blktests_results "$log.txt")
	grep -q '^BB-BLKTESTS-END' "$log.txt" && [ -n "$(blktests_results "$log.txt")" ]
	tap $? "guest: the blktests cases ran ($blktests)"
fi
finished=0
grep -q '^BB-DMESG-END' "$log.txt" && [ $boot_rc -eq 0 ] && finished=1
[ $finished -eq 1 ]
tap $? "guest: finished and powered off (no hang, no panic)"
if [ $finished -ne 1 ]; then
	echo "# last lines of the console:"
	tail -n 40 "$log.txt" | sed 's/^/#   /'
fi
# shellcheck source=../tools/testing/selftests/block-batch/test_common.sh
eval "$(grep -E '^(BB_SPLAT_RE|BB_SYSRQ_BEGIN|BB_SYSRQ_END)' \
	"$BB_TOP/tools/testing/selftests/block-batch/test_common.sh")"
splat_re=$BB_SPLAT_RE
# A watchdog's sysrq-w dump (stacks of blocked tasks) is the evidence of a
# stall, which fails its test already; here it is no splat of its own.
sed "/$BB_SYSRQ_BEGIN/,/$BB_SYSRQ_END/d" "$log.txt" > "$log.splat.txt"
if grep -Eq "$splat_re" "$log.splat.txt"; then
	grep -E -B2 -A20 "$splat_re" "$log.splat.txt" | head -n 60 | sed 's/^/#   /'
	tap 1 "guest: kernel log free of lockdep/KASAN/KCSAN/WARN/BUG/hung-task reports"
else
	tap 0 "guest: kernel log free of lockdep/KASAN/KCSAN/WARN/BUG/hung-task reports"
fi

compare_base
# --full: each posting booted on its own with its tests (not for --tree,
# --kdir or --tests: those test one given tree)
if [ $full -eq 1 ] && [ -z "$ptree$kdir$tests_opt" ]; then
	while read -r st rest; do
		case $st in
		ok) tap 0 "posting booted alone: $rest" ;;
		*) tap 1 "posting booted alone: ${rest#ok }" ;;
		esac
	done < <(stage postings "$BB_TOP/scripts/boot-postings.sh" 2> "$BB_OUT/postings.log")
fi
finish
