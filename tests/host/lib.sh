# SPDX-License-Identifier: GPL-2.0
# Helpers for the host-side tests of the block-batch tooling.  Each test is a
# bash script: exit 0 pass, 4 skip, anything else fail.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/bb-hosttest.XXXXXX")
trap 'rm -rf "$T"' EXIT
export BB_CACHE=$T/cache
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t

fail() { echo "FAIL: $*"; exit 1; }

# expect_fail REGEX CMD... -- CMD must exit non-zero and say REGEX on stderr
expect_fail() {
	local re=$1 rc
	shift
	"$@" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -ne 0 ] || { cat "$T/err"; fail "'$*' succeeded, expected a failure"; }
	grep -Eq -e "$re" "$T/err" || { cat "$T/err"; fail "'$*' did not say /$re/"; }
	echo "ok: '$*' -> rc=$rc: $(grep -E -e "$re" "$T/err" | head -n1)"
}

# mk_fake_kernel DIR -- a tiny kernel-shaped git tree
mk_fake_kernel() {
	mkdir -p "$1/block" "$1/tools/testing/selftests"
	printf 'VERSION = 7\n' > "$1/Makefile"
	printf 'int a;\nint b;\n/* 1 */\n/* 2 */\n/* 3 */\n/* 4 */\n/* 5 */\n/* 6 */\n/* 7 */\nint c;\n' > "$1/block/blk-core.c"
	printf 'TARGETS += arm64\nTARGETS += bpf\n' > "$1/tools/testing/selftests/Makefile"
	git -C "$1" init -q -b main && git -C "$1" add -A &&
		git -C "$1" commit -q -m base
}

# cached_base CACHE -- where fetch-base.sh keeps the base of base.lock in
# the cache CACHE
cached_base() {
	local v

	v=$(sed -n 's/^BASE_VERSION=//p' "$TOP/base.lock")
	echo "$1/base/${v//[~:]/_}/linux"
}

# mk_cached_base -- a fake kernel as fetch-base.sh leaves the cached base
# in $BB_CACHE (its fast path: the tree, tagged block-batch-base); prints
# its path
mk_cached_base() {
	local base

	base=$(cached_base "$BB_CACHE")
	mk_fake_kernel "$base"
	git -C "$base" tag block-batch-base
	echo "$base"
}

# mk_fake_series DIR -- a two-patch series for the fake kernel, as
# patches/ holds it: the first patch edits an existing file and adds a new
# directory, the second only edits.
mk_fake_series() {
	local k=$T/series-src

	mk_fake_kernel "$k"
	mkdir -p "$k/tools/testing/selftests/fake"
	echo 'echo hi' > "$k/tools/testing/selftests/fake/test_x_01.sh"
	sed -i 's/^int b;/int b = 1;/' "$k/block/blk-core.c"
	git -C "$k" add -A
	git -C "$k" commit -q -m "block: one" -m "Signed-off-by: t <t@t>"
	sed -i 's/^int c;/int c = 2;/' "$k/block/blk-core.c"
	git -C "$k" commit -q -a -m "block: two" -m "Signed-off-by: t <t@t>"
	mkdir -p "$1"
	git -C "$k" format-patch -q -o "$1" HEAD~2
	{
		echo "# test series"
		echo "0001-block-one.patch"
		echo "0002-block-two.patch"
	} > "$1/series"
}

# tree_state DIR -- everything a user would notice about their tree
tree_state() {
	git -C "$1" rev-parse HEAD
	git -C "$1" symbolic-ref -q HEAD
	git -C "$1" for-each-ref --format='%(refname) %(objectname)'
	git -C "$1" worktree list --porcelain | grep -c '^worktree'
	git -C "$1" status --porcelain --untracked-files=all
	find "$1" -path "$1/.git" -prune -o -type f -newer "$T/stamp" -print
}

# mk_bench_qemu FILE -- a stand-in for QEMU running a benchmark guest: from
# the kernel command line's bb.kernel=K, two cases (none, bfq), each a
# second, their BENCH lines, bfq's LOCKSTAT line (acq: the length of K;
# hold time 300 us in the base, 100 us patched, in 0.1 s; queue_lock never
# held) and its HOLDSITE lines on
# the serial console, then the guest's last line
mk_bench_qemu() {
	cat > "$1" <<'EOT'
#!/bin/bash
while [ $# -gt 0 ]; do
	case $1 in -serial) log=${2#file:}; shift ;; -append) app=$2; shift ;; esac
	shift
done
k=${app#*bb.kernel=}; k=${k%% *}
for s in none bfq; do
	sleep 1
	echo "BENCH kernel=$k sched=$s jobs=1 iops=$((RANDOM + 1000)) merges=0" >> "$log"
	[ $s = none ] || {
		echo "LOCKSTAT kernel=$k sched=$s jobs=1 ios=100 iops=1000 class=sched-lock con=0 acq=${#k} hold=2 htot=$([ "$k" = base ] && echo 300 || echo 100)"
		echo "LOCKSTAT kernel=$k sched=$s jobs=1 ios=100 iops=1000 class=&q->queue_lock con=0 acq=1 hold=0 htot=0"
		echo "HOLDSITE kernel=$k sched=$s jobs=1 ios=200 site=insert n=200 ns=$((${#k} * 100000))"
		echo "HOLDSITE kernel=$k sched=$s jobs=1 ios=200 site=dispatch n=50 ns=100000"
	} >> "$log"
done
echo BB-DMESG-END >> "$log"
EOT
	chmod +x "$1"
}
