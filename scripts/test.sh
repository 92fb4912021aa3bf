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
# usage: test.sh [--kdir DIR] [--host-only] [--tests a,b] [--smp N] [--no-base]
#   --kdir DIR   test the series on your own kernel tree (a new branch)
#   --host-only  only the host-side tooling tests (no kernel build)
#   --tests      only these kselftests (e.g. test_switch_01.sh)
#   --no-base    skip the base kernel (built with the same config and booted
#                in the same run, to compare merging against it)
#   -f FRAGMENT  extra kernel config fragment, e.g. configs/rt.config or
#                configs/kcsan.config (own build directory linux-obj-NAME)

set -u
. "$(dirname "$0")/lib.sh"

kdir=${KDIR:-} host_only=0 tests= smp=2 frags=() objname=obj base_cmp=1
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) kdir=${2:?}; shift 2 ;;
	--host-only) host_only=1; shift ;;
	--tests) tests=${2:?}; shift 2 ;;
	--smp) smp=${2:?}; shift 2 ;;
	--no-base) base_cmp=0; shift ;;
	-f) frags+=(-f "$(realpath "${2:?}")"); objname+=-$(basename "$2" .config); shift 2 ;;
	-h|--help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [--kdir DIR] [--host-only] [--tests LIST] [--smp N] [--no-base]" >&2; exit 2 ;;
	esac
done

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

stage deps "$BB_TOP/scripts/install-deps.sh"
tap $? "host: dependencies installed"
[ $fail -eq 0 ] || finish

# --- host-side tests of the tooling ----------------------------------------
for t in "$BB_TOP"/tests/host/test_*.sh; do
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
stage fetch "$BB_TOP/scripts/fetch-base.sh" > "$BB_OUT/base-tree" ||
	{ tap 1 "guest: fetch base"; finish; }
stage apply "$BB_TOP/scripts/apply-series.sh" ${kdir:+--kdir "$kdir"} \
	> "$BB_OUT/tree" || { tap 1 "guest: apply series"; finish; }
tree=$(cat "$BB_OUT/tree")
obj=$(bb_obj_dir "$tree" "$objname")
stage build "$BB_TOP/scripts/build.sh" "${frags[@]}" "$tree" "$obj" > "$BB_OUT/bzImage.path" ||
	{ tap 1 "guest: build kernel"; finish; }
stage bisect "$BB_TOP/scripts/check-series.sh" build "$obj" > "$BB_OUT/bisect.log" 2>&1
rc=$?
sed 's/^/# /' "$BB_OUT/bisect.log" | grep -v '^# block-batch:'
tap $rc "series: each patch builds the objects it touches (W=1, sparse), no new warnings"
stage initramfs "$BB_TOP/scripts/mkinitramfs.sh" "$tree" "$BB_OUT/initramfs.cpio.gz" \
	>/dev/null || { tap 1 "guest: initramfs"; finish; }
append="bb.mode=test"
[ -n "$tests" ] && append+=" bb.tests=$tests"
# A scratch NVMe controller with several queues, for the reset stress.
truncate -s 256M "$BB_OUT/nvme.img"
nvme=(-q -drive -q "file=$BB_OUT/nvme.img,if=none,id=bbnvme,format=raw"
      -q -device -q "nvme,serial=bbnvme,drive=bbnvme,max_ioqpairs=4")
stage boot+tests "$BB_TOP/scripts/boot.sh" -s "$smp" -t "${BB_GUEST_TIMEOUT:-2400}" \
	"${nvme[@]}" -a "$append" "$(cat "$BB_OUT/bzImage.path")" \
	"$BB_OUT/initramfs.cpio.gz" "$BB_OUT/guest.log"
boot_rc=$?
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
finished=0
grep -q '^BB-DMESG-END' "$log.txt" && [ $boot_rc -eq 0 ] && finished=1
[ $finished -eq 1 ]
tap $? "guest: finished and powered off (no hang, no panic)"
if [ $finished -ne 1 ]; then
	echo "# last lines of the console:"
	tail -n 40 "$log.txt" | sed 's/^/#   /'
fi
# shellcheck source=../tools/testing/selftests/block-batch/test_common.sh
eval "$(grep '^BB_SPLAT_RE' "$BB_TOP/tools/testing/selftests/block-batch/test_common.sh")"
splat_re=$BB_SPLAT_RE
if grep -Eq "$splat_re" "$log.txt"; then
	grep -E -B2 -A20 "$splat_re" "$log.txt" | head -n 60 | sed 's/^/#   /'
	tap 1 "guest: kernel log free of lockdep/KASAN/KCSAN/WARN/BUG/hung-task reports"
else
	tap 0 "guest: kernel log free of lockdep/KASAN/KCSAN/WARN/BUG/hung-task reports"
fi

# --- the base kernel: same config, same run --------------------------------
# test_merge_01 prints the merge ratio per scheduler and case; the series
# must merge at least as well as the kernel it applies to (the regression
# that sank the 2024 mq-deadline/bfq scalability series).  The base also
# runs test_order_01 (expected to fail there), for its inversion count.
# merge_ratios LOG -- "SCHED CASE RATIO" per merge_01 line of a guest log
# (the kselftest runner prefixes the test's "# " lines with another "# ")
merge_ratios() {
	sed -n 's/^\(# \)*merge_01: sched=\([^ ]*\) case=\([^ ]*\) .* ratio=\([0-9.]*\).*/\2 \3 \4/p' "$1"
}
# Compare when test_merge_01 ran and passed or failed here (not skipped).
if [ $base_cmp -eq 1 ] &&
   grep -Eq '^(not )?ok [0-9]+ selftests: block-batch: test_merge_01.sh$|^not ok [0-9]+ selftests: block-batch: test_merge_01.sh ' "$log.txt"; then
	[ -n "$(merge_ratios "$log.txt")" ]
	tap $? "base: the series' merge ratios were reported (test_merge_01)"
	blog=$BB_OUT/guest-base.log
	base_tree=$(bb_base_worktree "$tree") &&
	stage build-base "$BB_TOP/scripts/build.sh" "${frags[@]}" "$base_tree" \
		"$(bb_obj_dir "$base_tree" "$objname")" > "$BB_OUT/bzImage-base.path" &&
	stage boot-base "$BB_TOP/scripts/boot.sh" -s "$smp" -t 900 \
		-a "bb.mode=test bb.tests=test_merge_01.sh,test_order_01.sh" \
		"$(cat "$BB_OUT/bzImage-base.path")" "$BB_OUT/initramfs.cpio.gz" "$blog"
	tap $? "base: base kernel built and booted with the same config"
	tr -d '\r' < "$blog" > "$blog.txt" 2>/dev/null
	grep -E '^(# )+(merge|order)_01: ' "$blog.txt" | sed -E 's/^(# )+/# base kernel: /'
	while read -r sched case ratio; do
		bratio=$(merge_ratios "$blog.txt" | awk -v s="$sched" -v c="$case" \
			'$1 == s && $2 == c { print $3 }')
		if [ -z "$bratio" ]; then
			tap 1 "base: $sched $case merge ratio: no figure from the base kernel"
			continue
		fi
		# Both are fractions of bios merged; BB_MERGE_SLACK absorbs run
		# to run noise (default 0.02: 2% of the bios).
		slack=${BB_MERGE_SLACK:-0.02}
		awk -v p="$ratio" -v b="$bratio" -v d="$slack" \
			'BEGIN { exit !(p >= b - d) }'
		tap $? "base: $sched $case merge ratio, series $ratio >= base $bratio - $slack"
	done < <(merge_ratios "$log.txt")
fi
finish
