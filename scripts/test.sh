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
#   --tests      only these kselftests (e.g. test_switch_01.sh)
#   --blktests L the blktests cases to run after them (e.g. block/040),
#                "none" for none; default: all of blktests/tests/block in
#                both tiers, none with --tests
#   --ublk G     the groups of the kernel's own ublk selftests to run after
#                the block-batch ones, on the series and on the base kernel
#                (e.g. null,loop), "none" for none; default: UBLK_CI_GROUPS
#                below in the CI tier, every group with --full, none with
#                --tests.  Needs liburing 2.4 or later from Debian sid
#                (scripts/install-liburing.sh); without it they are skipped
#   --full       the long tier: every kselftest (the CI tier leaves out
#                FULL_ONLY below), and every stress loop gets 300 s instead
#                of the CI tier's 60 s (BB_STRESS_SECS in test_common.sh)
#   --load N     N CPU hogs in their own session during the guest stages, to
#                check that no verdict depends on the machine's load
#   --no-base    skip the base kernel (built with the same config and booted
#                in the same run, to compare merging and the ublk selftests'
#                verdicts against it)
#   -f FRAGMENT  extra kernel config fragment, e.g. configs/rt.config or
#                configs/kcsan.config (own build directory linux-obj-NAME)

set -u
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: $0 [--kdir DIR | --tree DIR] [--host-only] [--tests LIST] [--blktests LIST] [--ublk GROUPS] [--smp N] [--load N] [--full] [--no-base] [-f FRAGMENT]..." >&2
	exit 2
}
kdir=${KDIR:-} ptree='' host_only=0 tests= blktests_opt= ublk_opt= smp=2 load=0 full=0 frags=() objname=obj base_cmp=1
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
		frags+=(-f "$(realpath "$2")"); objname+=-$(basename "$2" .config); shift 2 ;;
	-h|--help) sed -n '3,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "$0: unknown argument '$1'" >&2; usage ;;
	esac
done
# Check every argument before anything is fetched or built.
[[ $smp =~ ^[1-9][0-9]*$ ]] && [ "$smp" -le 8 ] || die "--smp '$smp': a number of CPUs, 1 to 8"
[[ $load =~ ^[0-9]+$ ]] && [ "$load" -le 64 ] || die "--load '$load': a number of CPU hogs, 0 to 64"
[ -z "$kdir" ] || [ -z "$ptree" ] || die "--kdir and --tree exclude each other"
if [ -n "$ptree" ]; then
	[ -f "$ptree/Makefile" ] && [ -d "$ptree/block" ] ||
		die "--tree '$ptree' is not a kernel source tree"
	[ -d "$ptree/tools/testing/selftests/block-batch" ] ||
		die "--tree '$ptree' does not have the series applied"
	ptree=$(realpath "$ptree")
fi
for t in ${tests//,/ }; do
	[ -f "$BB_TOP/tools/testing/selftests/block-batch/$t" ] ||
		die "--tests: no kselftest '$t' in tools/testing/selftests/block-batch"
done
if [ -n "$blktests_opt" ] && [ "$blktests_opt" != none ]; then
	for t in ${blktests_opt//,/ }; do
		[[ $t =~ ^block/[0-9]{3}$ ]] && [ -f "$BB_TOP/blktests/tests/$t" ] ||
			die "--blktests: no case '$t' in blktests/tests (e.g. block/040)"
	done
fi
# The groups of the kernel's ublk selftests in the CI tier (issue 10: the
# generic, batch, null, loop and recover groups; stress, stripe, integrity,
# shmemzc, part and params run with --full or --ublk).
UBLK_CI_GROUPS="generic,batch,null,loop,recover"
# All groups of v7.3's ublk selftests; the tree's own are checked again
# once it is there (a --kdir tree may have others).
UBLK_GROUPS="generic batch null loop integrity recover stripe part params shmemzc stress"
if [ -n "$ublk_opt" ] && [ "$ublk_opt" != none ]; then
	for g in ${ublk_opt//,/ }; do
		[ -n "$kdir$ptree" ] && [[ $g =~ ^[a-z]+$ ]] && continue
		case " $UBLK_GROUPS " in
		*" $g "*) ;;
		*) die "--ublk: '$g' is no group of the ublk selftests ($UBLK_GROUPS)" ;;
		esac
	done
fi
# The CI tier (no --full, no --tests) leaves these out, to keep a cold CI run
# on a 2-core machine within its budget (README: "CI budget"):
# test_quiesce_01 quiesces a frozen queue only (the live-queue quiesce is
# test_quiesce_02 and _03's), and test_integrity_02 is test_integrity_01
# through libaio (test_mixed_01 also runs libaio).
FULL_ONLY="test_quiesce_01.sh test_integrity_02.sh"
tier=full
if [ -z "$tests" ] && [ $full -eq 0 ]; then
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

mkdir -p "$BB_OUT"
: > "$BB_OUT/stages.txt"
t_start=$(date +%s)
n=0 pass=0 fail=0 skip=0
declare -a failed_names=()

# tap RC NAME -- one TAP line; RC 0 pass, 4 skip, else fail
tap() {
	n=$((n + 1))
	case $1 in
	0) pass=$((pass + 1)); echo "ok $n $2" ;;
	4) skip=$((skip + 1)); echo "ok $n $2 # SKIP" ;;
	*) fail=$((fail + 1)); failed_names+=("$2"); echo "not ok $n $2" ;;
	esac
}

finish() {
	echo "1..$n"
	echo "# stage times:"
	sed 's/^/#   /' "$BB_OUT/stages.txt"
	echo "#   total $(( $(date +%s) - t_start ))s"
	[ $fail -eq 0 ] || echo "# failed: ${failed_names[*]}"
	echo "$pass passed, $fail failed, $skip skipped"
	[ $fail -eq 0 ]
	exit $?
}

echo "TAP version 13"
[ $tier = ci ] && echo "# CI tier: $FULL_ONLY run only with --full"

stage deps "$BB_TOP/scripts/install-deps.sh"
tap $? "host: dependencies installed"
[ $fail -eq 0 ] || finish

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
obj=$(bb_obj_dir "$tree" "$objname")
# The kernel's own ublk selftests: which groups, checked against the tree.
ublk=
if [ -n "$ublk_opt" ]; then
	[ "$ublk_opt" = none ] || ublk=$ublk_opt
elif [ $full -eq 1 ]; then
	ublk=$(ls "$tree"/tools/testing/selftests/ublk/test_*_[0-9][0-9].sh 2>/dev/null |
	       sed 's|.*/test_\([a-z]*\)_[0-9]*\.sh$|\1|' | sort -u | paste -sd,)
elif [ "$tier" = ci ]; then
	ublk=$UBLK_CI_GROUPS
fi
ublk_list=
for g in ${ublk//,/ }; do
	set -- "$tree"/tools/testing/selftests/ublk/test_"$g"_[0-9][0-9].sh
	[ -f "$1" ] || die "--ublk: $tree has no ublk selftests in group '$g'"
	for t in "$@"; do ublk_list+=" ${t##*/}"; done
done
stage build "$BB_TOP/scripts/build.sh" -m "${frags[@]}" "$tree" "$obj" > "$BB_OUT/bzImage.path" ||
	{ tap 1 "guest: build kernel"; finish; }
if [ -z "$ptree" ]; then
	stage bisect "$BB_TOP/scripts/check-series.sh" build "$obj" > "$BB_OUT/bisect.log" 2>&1
	rc=$?
	sed 's/^/# /' "$BB_OUT/bisect.log" | grep -v '^# block-batch:'
	tap $rc "series: each patch builds the objects it touches (W=1, sparse), no new warnings"
fi
# The kernel's ublk selftests go into the guest whenever liburing 2.4 or
# later can be had: test_ublk_01 runs their kublk too.
kublk=1
if ! "$BB_TOP/scripts/install-liburing.sh" > /dev/null; then
	kublk=0
	tap 4 "guest: the kernel's ublk selftests${ublk:+ ($ublk)} and kublk: no liburing 2.4 or later (scripts/install-liburing.sh failed)"
	ublk= ublk_list=
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
elif [ "$tier" = ci ] || [ $full -eq 1 ]; then
	for t in "$BB_TOP"/blktests/tests/block/[0-9][0-9][0-9]; do
		blktests+=${blktests:+,}block/${t##*/}
	done
fi
[ -z "$blktests" ] || append+=" bb.blktests=$blktests"
guest_tmo=${BB_GUEST_TIMEOUT:-3600}
if [ $full -eq 1 ]; then
	append+=" bb.stress_secs=${BB_FULL_STRESS_SECS:-300}"
	guest_tmo=${BB_GUEST_TIMEOUT:-7200}
fi
# A scratch NVMe controller with several queues, for the reset stress.
truncate -s 256M "$BB_OUT/nvme.img"
nvme=(-q -drive -q "file=$BB_OUT/nvme.img,if=none,id=bbnvme,format=raw"
      -q -device -q "nvme,serial=bbnvme,drive=bbnvme,max_ioqpairs=4")
# Scratch SCSI disks behind real drivers, for test_drivers_01: QEMU's
# emulated LSI MegaRAID (megasas-gen2: megaraid_sas) and virtio-scsi (two
# request queues), found by their model "bbscratch"
truncate -s 256M "$BB_OUT/megasas.img" "$BB_OUT/vscsi.img"
nvme+=(-q -drive -q "file=$BB_OUT/megasas.img,if=none,id=bbmega,format=raw"
       -q -device -q "megasas-gen2,id=bbmegasas"
       -q -device -q "scsi-hd,drive=bbmega,bus=bbmegasas.0,product=bbscratch"
       -q -drive -q "file=$BB_OUT/vscsi.img,if=none,id=bbvs,format=raw"
       -q -device -q "virtio-scsi-pci,id=bbvscsi,num_queues=2"
       -q -device -q "scsi-hd,drive=bbvs,bus=bbvscsi.0,product=bbscratch")
load_start
stage boot+tests "$BB_TOP/scripts/boot.sh" -s "$smp" -t "$guest_tmo" \
	"${nvme[@]}" -a "$append" "$(cat "$BB_OUT/bzImage.path")" \
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

grep -qE '^(not )?ok [0-9]+ selftests: ' "$log.txt"
tap $? "guest: the kselftest runner ran tests"
# ublk_results LOG -- "TEST VERDICT" (pass, fail, skip) per ublk selftest
ublk_results() {
	sed -n 's/^\(not \)\{0,1\}ok [0-9]* selftests: ublk: \(test_[a-z0-9_]*\.sh\)\(.*\)$/\1|\2|\3/p' "$1" |
	awk -F'|' '{ v = "pass"; if ($1 != "") v = "fail"; else if ($3 ~ /# SKIP/) v = "skip"; print $2, v }'
}
if [ -n "$ublk" ]; then
	nr_want=$(echo $ublk_list | wc -w)
	nr_ran=$(ublk_results "$log.txt" | wc -l)
	[ "$nr_ran" -eq "$nr_want" ]
	tap $? "guest: the kernel's ublk selftests ran ($ublk: $nr_ran of $nr_want)"
fi

# blktests_results LOG -- "STATUS NAME (CONDITION)" per blktests ./check
# line of a guest log; the lines below a result (skip reasons, the diff of
# a failure) as "# " comments
blktests_results() {
	sed -n '/^BB-BLKTESTS-BEGIN/,/^BB-BLKTESTS-END/p' "$1" | awk '
		/^block\/[0-9]+ / {
			st = $0; sub(/.*\[/, "", st); sub(/\].*/, "", st)
			cond = ""
			if (match($0, /\) \([^()]*\) +\[/))
				cond = " " substr($0, RSTART + 2, RLENGTH - 2)
			sub(/ +\[$/, "", cond)
			print st "|" $1 cond
			next
		}
		/^    / { print "#|" $0 }'
}
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

# --- the base kernel: same config, same run --------------------------------
# test_merge_01 prints the merge ratio per scheduler and case; the series
# must merge at least as well as the kernel it applies to (the regression
# that sank the 2024 mq-deadline/bfq scalability series).  For its HDD-like
# case (case=hdd) it also prints fio's write IOPS: their ratio series/base is
# reported, never checked (IOPS under TCG follow the host's load).  The base
# also runs test_order_01 (expected to fail there), for its inversion count.
# merge_ratios LOG -- "SCHED CASE RATIO" per merge_01 line of a guest log
# (the kselftest runner prefixes the test's "# " lines with another "# ")
merge_ratios() {
	sed -n 's/^\(# \)*merge_01: sched=\([^ ]*\) case=\([^ ]*\) .* ratio=\([0-9.]*\).*/\2 \3 \4/p' "$1"
}
# merge_iops LOG -- "SCHED CASE IOPS" per merge_01 IOPS line of a guest log
# (the HDD-like cases hdd and sd-hdd)
merge_iops() {
	sed -n 's/^\(# \)*merge_01: sched=\([^ ]*\) case=\([^ ]*\) iops=\([0-9][0-9]*\).*/\2 \3 \4/p' "$1"
}
# Compare when test_merge_01 ran and passed or failed here (not skipped),
# or when the kernel's ublk selftests ran.
merge_ran=0
grep -Eq '^(not )?ok [0-9]+ selftests: block-batch: test_merge_01.sh$|^not ok [0-9]+ selftests: block-batch: test_merge_01.sh ' "$log.txt" &&
	merge_ran=1
# The kernel's ublk selftests on the base: with --full every group the
# series ran; otherwise only those the series did not pass (failed or
# skipped), which is all the check below needs: a test the series passes
# cannot be one the series lost.  The CI tier saves the base's ublk run
# (about 6 minutes under TCG) when the series passes them all.
bublk= bublk_tests=
if [ -n "$ublk" ]; then
	if [ $full -eq 1 ] || [ -n "$ublk_opt" ]; then
		bublk=$ublk
	else
		bublk_tests=$(ublk_results "$log.txt" | awk '$2 != "pass" { print "ublk:" $1 }' | paste -sd,)
	fi
fi
if [ $base_cmp -eq 1 ] && { [ $merge_ran -eq 1 ] || [ -n "$bublk$bublk_tests" ]; }; then
	if [ $merge_ran -eq 1 ]; then
		[ -n "$(merge_ratios "$log.txt")" ]
		tap $? "base: the series' merge ratios were reported (test_merge_01)"
		btests=test_merge_01.sh,test_order_01.sh${bublk_tests:+,$bublk_tests}
	else
		btests=${bublk_tests:-none}
	fi
	blog=$BB_OUT/guest-base.log
	# The base kernel boots with the series' kselftests and its own modules.
	base_tree=$(bb_base_worktree "$tree") &&
	base_obj=$(bb_obj_dir "$base_tree" "$objname") &&
	uarg=() && { [ $kublk -eq 0 ] || uarg=(-u "$base_obj"); } &&
	stage build-base "$BB_TOP/scripts/build.sh" -m "${frags[@]}" "$base_tree" \
		"$base_obj" > "$BB_OUT/bzImage-base.path" &&
	stage initramfs-base "$BB_TOP/scripts/mkinitramfs.sh" -m "$base_obj/modroot" \
		"${uarg[@]}" "$tree" \
		"$BB_OUT/initramfs-base.cpio.gz" > /dev/null &&
	load_start &&
	stage boot-base "$BB_TOP/scripts/boot.sh" -s "$smp" -t 1800 \
		-a "bb.mode=test bb.tests=$btests${bublk:+ bb.ublk=$bublk}${blktests:+ bb.blktests=$blktests}" \
		"$(cat "$BB_OUT/bzImage-base.path")" "$BB_OUT/initramfs-base.cpio.gz" "$blog"
	rc=$?
	load_stop
	[ $rc -eq 0 ]
	tap $? "base: base kernel built and booted with the same config"
	tr -d '\r' < "$blog" > "$blog.txt" 2>/dev/null
	grep -E '^(# )+(merge|order)_01: ' "$blog.txt" | sed -E 's/^(# )+/# base kernel: /'
	# the blktests cases on the base: reported (block/041, dispatch
	# order, is expected to fail there), not checked
	blktests_results "$blog.txt" | sed -e 's/^#|/# base kernel:   /' \
		-e 's/^\([^#][^|]*\)|\(.*\)/# base kernel: blktests \2: \1/'
	while read -r sched case ratio; do
		bratio=$(merge_ratios "$blog.txt" | awk -v s="$sched" -v c="$case" \
			'$1 == s && $2 == c { print $3 }')
		if [ -z "$bratio" ]; then
			tap 1 "base: $sched $case merge ratio: no figure from the base kernel"
			continue
		fi
		# On the HDD-like device the share of bios that find a request
		# to merge into depends on how fast the guest resubmits against
		# the 100 ms completions, so on the host's load: bfq gave 0.338
		# and 0.484 in two runs of the same series kernel (base 0.500);
		# the base's mq-deadline 0.812 idle and 0.886 on a loaded host.
		# One run per kernel at different moments cannot tell a
		# regression from that: reported here; it needs interleaved
		# rounds (scripts/run.sh).
		case " ${BB_MERGE_REPORT_ONLY-mq-deadline:hdd bfq:hdd mq-deadline:sd-hdd bfq:sd-hdd} " in
		*" $sched:$case "*)
			echo "# base: $sched $case merge ratio, series $ratio, base $bratio" \
			     "(reported, not checked: BB_MERGE_REPORT_ONLY)"
			continue ;;
		esac
		# Both are fractions of bios merged; BB_MERGE_SLACK absorbs run
		# to run noise, default 0.05: series minus base was -0.016 to
		# +0.027 idle and down to -0.043 (bfq queued) on a loaded host
		# in session 3, while mq-deadline without bio merging was
		# -0.10 in session 2 (mutant 05).
		slack=${BB_MERGE_SLACK:-0.05}
		awk -v p="$ratio" -v b="$bratio" -v d="$slack" \
			'BEGIN { exit !(p >= b - d) }'
		tap $? "base: $sched $case merge ratio, series $ratio >= base $bratio - $slack"
	done < <(merge_ratios "$log.txt")
	# HDD-like cases: IOPS series/base per scheduler, when both reported.
	while read -r sched case iops; do
		biops=$(merge_iops "$blog.txt" | awk -v s="$sched" -v c="$case" \
			'$1 == s && $2 == c { print $3; exit }')
		[ "${biops:-0}" -gt 0 ] || continue
		echo "# base: $sched $case IOPS series/base" \
			"$(awk -v p="$iops" -v b="$biops" 'BEGIN { printf "%.2f", p / b }')" \
			"(series $iops, base $biops; reported, not checked)"
	done < <(merge_iops "$log.txt")
	# The kernel's ublk selftests: the series must pass every one that
	# the base passes; differences either way are listed.
	if [ -n "$bublk$bublk_tests" ]; then
		lost=0 same=0
		while read -r t v; do
			bv=$(ublk_results "$blog.txt" | awk -v t="$t" '$1 == t { print $2 }')
			if [ "$v" = "${bv:-none}" ]; then
				same=$((same + 1))
				continue
			fi
			[ -z "$bublk" ] && [ "$v" = pass ] && continue
			echo "# base: ublk $t: series $v, base ${bv:-not run}"
			[ "$bv" = pass ] && lost=$((lost + 1))
			[ -z "$bv" ] && [ "$v" != pass ] && lost=$((lost + 1))
		done < <(ublk_results "$log.txt")
		echo "# base: ublk selftests: series $(ublk_results "$log.txt" |
			awk '{ n[$2]++ } END { printf "%d pass, %d fail, %d skip", n["pass"], n["fail"], n["skip"] }'), base ${bublk:-(only those the series did not pass)} $(ublk_results "$blog.txt" |
			awk '{ n[$2]++ } END { printf "%d pass, %d fail, %d skip", n["pass"], n["fail"], n["skip"] }'); $same the same"
		[ -n "$(ublk_results "$blog.txt")" ] && [ $lost -eq 0 ]
		tap $? "base: the series passes every ublk selftest that the base kernel passes ($ublk)"
	fi
fi
if [ -n "$ublk" ] && [ -z "$bublk$bublk_tests" ] && [ $base_cmp -eq 1 ]; then
	# the series passed every one that ran: nothing it could have lost,
	# if all of them ran
	[ "$nr_ran" -gt 0 ] && [ "$nr_ran" -eq "$nr_want" ]
	tap $? "base: the series passes every ublk selftest that the base kernel passes ($ublk: the series passed $nr_ran of $nr_want, so the base need not run them)"
fi
finish
