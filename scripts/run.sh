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
#               [-f FRAGMENT] [--debug] [--kdir DIR] [--pack DIR]
#               [--ublk "pc pc-b zc zc-b uc uc-b"]
#   --ublk MODES instead of null_blk under each scheduler, kublk's null
#                target (the kernel's ublk selftests' server, built with
#                liburing from scripts/install-liburing.sh) in each MODE:
#                pc page copy, zc zero copy (--auto_zc), uc user copy (-u),
#                -b with UBLK_F_BATCH_IO (kublk -b)
#   -f FRAGMENT  extra config fragment for both kernels (e.g. configs/rt.config,
#                configs/lockstat.config: adds lock_stat columns to the table)
#   --debug      keep configs/debug.config (lockdep) in; off by default, as
#                lockdep dwarfs what is measured
#   --pack DIR   build only, and write a self-contained bundle to DIR (both
#                kernels, the initramfs, this machine's QEMU with its
#                libraries and firmware, scripts/bench/run-guests.sh) to run
#                the benchmark on a bigger x86_64 machine: DIR/run.sh

set -u
. "$(dirname "$0")/lib.sh"

smp=2 jobs="1 4 16" scheds="none mq-deadline bfq" runtime=10 rounds=2
irqmode=0 rw=randwrite frags=() kdir=${KDIR:-} nodebug=-n pack= ublk=
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
	--pack) pack=${2:?}; shift 2 ;;
	--ublk) ublk=${2:?}; shift 2 ;;
	-h|--help) sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [--smp N] [--jobs LIST] [--scheds LIST] [--runtime S] [--rounds R] [--irqmode M] [--rw RW] [-f FRAG] [--debug] [--kdir DIR] [--pack DIR] [--ublk MODES]" >&2; exit 2 ;;
	esac
done
ublk=${ublk//,/ }
for m in $ublk; do
	case $m in
	pc|pc-b|zc|zc-b|uc|uc-b) ;;
	*) die "--ublk: unknown mode '$m' (pc, pc-b, zc, zc-b, uc, uc-b)" ;;
	esac
done
[ -z "$ublk" ] || scheds=$(for m in $ublk; do printf 'ublk-%s ' "$m"; done)

"$BB_TOP/scripts/install-deps.sh" || exit 1
mkdir -p "$BB_OUT"
: > "$BB_OUT/stages.txt"
tag=bench${nodebug:--debug}
for ((i = 1; i < ${#frags[@]}; i += 2)); do
	tag+=-$(basename "${frags[i]}" .config)
done

stage fetch "$BB_TOP/scripts/fetch-base.sh" >/dev/null || exit 1
patched=$(stage apply "$BB_TOP/scripts/apply-series.sh" ${kdir:+--kdir "$kdir"}) || exit 1
# The base: the tree the series was applied to, in a worktree of its own.
base=$(bb_base_worktree "$patched") || die "cannot set up the base tree"

for k in base patched; do
	eval tree=\$$k
	stage "build-$k" "$BB_TOP/scripts/build.sh" $nodebug "${frags[@]}" "$tree" \
		"$(bb_obj_dir "$tree" "obj-$tag")" > "$BB_OUT/$tag-$k.bzImage" || exit 1
done
# One initramfs for both kernels: the guest learns which kernel it runs
# from the command line (bb.kernel=, set by run-guests.sh).
ex=$BB_OUT/$tag-extra
rm -rf "$ex" && mkdir -p "$ex"
cp "$BB_TOP/scripts/bench/guest-bench.sh" "$ex/run"
cat > "$ex/params" <<EOT
KERNEL=unknown
SCHEDS="$scheds"
JOBS="$jobs"
RUNTIME=$runtime
IRQMODE=$irqmode
RW=$rw
UBLK_MODES="$ublk"
EOT
stage initramfs "$BB_TOP/scripts/mkinitramfs.sh" \
	${ublk:+-u "$(bb_obj_dir "$patched" "obj-$tag")"} "$patched" \
	"$BB_OUT/$tag.cpio.gz" "$ex" >/dev/null || exit 1

if [ -n "$pack" ]; then
	stage pack "$BB_TOP/scripts/bench/pack.sh" "$pack" \
		"$(cat "$BB_OUT/$tag-base.bzImage")" \
		"$(cat "$BB_OUT/$tag-patched.bzImage")" "$BB_OUT/$tag.cpio.gz" || exit 1
	exit 0
fi

ncase=$(( $(wc -w <<<"$scheds") * $(wc -w <<<"$jobs") ))
stage boot "$BB_TOP/scripts/bench/run-guests.sh" -s "$smp" -r "$rounds" \
	-t $(( ncase * (runtime + 30) + 120 )) -o "$BB_OUT/$tag-smp$smp" \
	"$(cat "$BB_OUT/$tag-base.bzImage")" "$(cat "$BB_OUT/$tag-patched.bzImage")" \
	"$BB_OUT/$tag.cpio.gz"
rc=$?
if [ -n "$ublk" ]; then
	echo "(fio $rw 4k io_uring iodepth 32, ${runtime}s per case, kublk null target)"
else
	echo "(fio $rw 4k io_uring iodepth 32, ${runtime}s per case, null_blk irqmode=$irqmode)"
fi
echo "stage times:"; sed 's/^/  /' "$BB_OUT/stages.txt"
exit $rc
