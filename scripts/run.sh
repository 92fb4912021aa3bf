#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The block-batch main job: fetch the base, apply the series, build the base
# and the patched kernel (same config), boot each under QEMU TCG in turn
# (base, patched, base, patched, ...: interleaved, so drift hits both), run
# the fio benchmark of scripts/bench/guest-bench.sh, and print the table:
# IOPS per kernel, patched/base, and patched as % of 'none'.
#
# usage: run.sh [--smp N] [--jobs "1 4 16"] [--scheds "none mq-deadline bfq"]
#               [--runtime S] [--rounds R] [--irqmode 0|1|2] [--rw randwrite]
#               [-f FRAGMENT] [--debug] [--kdir DIR]
#   -f FRAGMENT  extra config fragment for both kernels (e.g. configs/rt.config,
#                configs/lockstat.config: adds lock_stat columns to the table)
#   --debug      keep configs/debug.config (lockdep) in; off by default, as
#                lockdep dwarfs what is measured

set -u
. "$(dirname "$0")/lib.sh"

smp=2 jobs="1 4 16" scheds="none mq-deadline bfq" runtime=10 rounds=2
irqmode=0 rw=randwrite frags=() kdir=${KDIR:-} nodebug=-n
while [ $# -gt 0 ]; do
	case $1 in
	--smp) smp=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	--scheds) scheds=${2:?}; shift 2 ;;
	--runtime) runtime=${2:?}; shift 2 ;;
	--rounds) rounds=${2:?}; shift 2 ;;
	--irqmode) irqmode=${2:?}; shift 2 ;;
	--rw) rw=${2:?}; shift 2 ;;
	-f) frags+=(-f "$(realpath "${2:?}")"); shift 2 ;;
	--kdir) kdir=${2:?}; shift 2 ;;
	--debug) nodebug=; shift ;;
	-h|--help) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [--smp N] [--jobs LIST] [--scheds LIST] [--runtime S] [--rounds R] [--irqmode M] [--rw RW] [-f FRAG] [--kdir DIR]" >&2; exit 2 ;;
	esac
done

"$BB_TOP/scripts/install-deps.sh" || exit 1
mkdir -p "$BB_OUT"
: > "$BB_OUT/stages.txt"
tag=bench${nodebug:--debug}
for ((i = 1; i < ${#frags[@]}; i += 2)); do
	tag+=-$(basename "${frags[i]}" .config)
done

stage fetch "$BB_TOP/scripts/fetch-base.sh" >/dev/null || exit 1
patched=$(stage apply "$BB_TOP/scripts/apply-series.sh" ${kdir:+--kdir "$kdir"}) || exit 1
nr=$(git -C "$patched" rev-list --count block-batch-base..HEAD 2>/dev/null ||
     wc -l < <(grep -v '^#' "$BB_TOP/patches/series"))
# The base: the tree the series was applied to, in a worktree of its own.
base=$BB_CACHE/worktrees/base-$(git -C "$patched" rev-parse --short "HEAD~$nr")
if [ ! -d "$base" ]; then
	git -C "$patched" worktree add -q --detach "$base" "HEAD~$nr" ||
		die "cannot add a worktree for the base"
fi

for k in base patched; do
	eval tree=\$$k
	stage "build-$k" "$BB_TOP/scripts/build.sh" $nodebug "${frags[@]}" "$tree" \
		"$BB_OUT/obj-$tag-$k" > "$BB_OUT/$tag-$k.bzImage" || exit 1
	ex=$BB_OUT/$tag-extra-$k
	rm -rf "$ex" && mkdir -p "$ex"
	cp "$BB_TOP/scripts/bench/guest-bench.sh" "$ex/run"
	cat > "$ex/params" <<EOT
KERNEL=$k
SCHEDS="$scheds"
JOBS="$jobs"
RUNTIME=$runtime
IRQMODE=$irqmode
RW=$rw
EOT
	stage "initramfs-$k" "$BB_TOP/scripts/mkinitramfs.sh" "$patched" \
		"$BB_OUT/$tag-$k.cpio.gz" "$ex" >/dev/null || exit 1
done

results=$BB_OUT/$tag-results.txt
: > "$results"
ncase=$(( $(wc -w <<<"$scheds") * $(wc -w <<<"$jobs") ))
for r in $(seq "$rounds"); do
	for k in base patched; do
		log=$BB_OUT/$tag-$k-round$r.log
		stage "boot-$k-$r" "$BB_TOP/scripts/boot.sh" -s "$smp" -m 4G \
			-t $(( ncase * (runtime + 30) + 120 )) -a bb.mode=bench \
			"$(cat "$BB_OUT/$tag-$k.bzImage")" "$BB_OUT/$tag-$k.cpio.gz" "$log" ||
			warn "$k round $r did not finish cleanly (see $log)"
		tr -d '\r' < "$log" | grep -E '^(BENCH|LOCKSTAT) ' |
			sed "s/\$/ round=$r/" >> "$results"
	done
done

# Table: mean over rounds.
awk -v scheds="$scheds" -v jobs="$jobs" -v smp="$smp" '
function kv(s, k,   a, i, n) { n = split(s, a, " "); for (i = 1; i <= n; i++) if (a[i] ~ "^" k "=") return substr(a[i], length(k) + 2); return "" }
{
	k = kv($0, "kernel"); s = kv($0, "sched"); j = kv($0, "jobs"); v = kv($0, "iops"); m = kv($0, "merges")
	if ($1 == "LOCKSTAT") {
		c = kv($0, "class"); ios = kv($0, "ios")
		if (ios > 0) { acq[k, s, j, c] += kv($0, "acq") / ios; con[k, s, j, c] += kv($0, "con") / ios; nl[k, s, j, c]++; classes[c] = 1 }
		next
	}
	if (v == "NA") next
	sum[k, s, j] += v; n[k, s, j]++; mer[k, s, j] += m
}
END {
	printf "| sched | jobs | base IOPS | patched IOPS | patched/base | base %% of none | patched %% of none | merges base/patched |\n"
	printf "|---|---|---|---|---|---|---|---|\n"
	ns = split(scheds, S, " "); nj = split(jobs, J, " ")
	for (a = 1; a <= ns; a++) for (b = 1; b <= nj; b++) {
		s = S[a]; j = J[b]
		if (!n["base", s, j] || !n["patched", s, j]) { printf "| %s | %s | n/a | n/a | | | | |\n", s, j; continue }
		bi = sum["base", s, j] / n["base", s, j]; pi = sum["patched", s, j] / n["patched", s, j]
		bn = n["base", "none", j] ? sum["base", "none", j] / n["base", "none", j] : 0
		pn = n["patched", "none", j] ? sum["patched", "none", j] / n["patched", "none", j] : 0
		printf "| %s | %s | %.0f | %.0f | %.3f | %s | %s | %.0f/%.0f |\n", s, j, bi, pi, pi / bi,
			bn ? sprintf("%.0f%%", 100 * bi / bn) : "-", pn ? sprintf("%.0f%%", 100 * pi / pn) : "-",
			mer["base", s, j] / n["base", s, j], mer["patched", s, j] / n["patched", s, j]
	}
	for (c in classes) {
		printf "\nlock_stat %s, per I/O (acquisitions / contentions):\n\n", c
		printf "| sched | jobs | base acq | base con | patched acq | patched con |\n|---|---|---|---|---|---|\n"
		for (a = 1; a <= ns; a++) for (b = 1; b <= nj; b++) {
			s = S[a]; j = J[b]
			printf "| %s | %s | %s | %s | %s | %s |\n", s, j,
				f3(acq, "base", s, j, c), f3(con, "base", s, j, c),
				f3(acq, "patched", s, j, c), f3(con, "patched", s, j, c)
		}
	}
}
function f3(arr, k, s, j, c) { return nl[k, s, j, c] ? sprintf("%.3f", arr[k, s, j, c] / nl[k, s, j, c]) : "-" }
' "$results" | tee "$BB_OUT/$tag-table.md"
echo "(QEMU TCG, -smp $smp, fio randwrite 4k io_uring iodepth 32, ${runtime}s x $rounds rounds, null_blk irqmode=$irqmode; raw: $results)"
echo "stage times:"; sed 's/^/  /' "$BB_OUT/stages.txt"
