#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Upstream blktests on the series and on its base, on the same machine in
# one run: builds both kernels with what the groups need
# (configs/nvme-fabrics.config and configs/blktests.config, lockdep on),
# builds blktests' helper programs in a copy of the checkout, boots the two
# kernels side by side (QEMU TCG) and runs the same cases in each, one
# ./check a case, each bounded, with an NVMe namespace and a virtio-scsi
# disk of its own as TEST_DEVS.  Writes OUT/table.md (a row per case and
# condition: both verdicts and runtimes, and "differs" where the verdicts
# do), OUT/{base,series}.txt (the parsed verdicts), the two console logs
# and OUT/meta.txt.  The checkout named by BB_BLKTESTS is only read.
#
# usage: BB_BLKTESTS=DIR blktests-upstream.sh [--groups LIST] [--cases LIST]
#        [--transports LIST] [--case-timeout S] [--fio-timeout S] [--smp N]
#        [--kdir DIR] OUT
#   --groups LIST      blktests groups (default: block,loop,dm,scsi,throtl,zbd,ublk,nvme)
#   --cases LIST       these cases (e.g. loop/001,nvme/058), the series' own
#                      (blktests/tests/block) among them: alone, instead of
#                      the groups; with --groups, before them
#   --transports LIST  NVMET_TRTYPES for the nvme cases (default: loop,tcp,fc)
#   --case-timeout S   seconds a case may take, all its conditions (default 900)
#   --fio-timeout S    blktests' TIMEOUT: the runtime cap of each fio run in a
#                      case, which without it runs its whole size (default 60)
#   --smp N            vCPUs per guest (default 2)
#   --kdir DIR         apply the series to your kernel tree, as test.sh does
# Exit status: 0 when every verdict is the same on both kernels and both
# guests finished; 1 when a verdict differs, a guest did not finish, or
# on an error (with its message); 2 on an unknown option.

set -u
. "$(dirname "$0")/lib.sh"
. "$BB_TOP/scripts/testlib/parse.sh"

usage() { bb_help "$0" usage; }
argv=("$0" "$@")
groups=block,loop,dm,scsi,throtl,zbd,ublk,nvme groups_set=0 cases= trtypes=loop,tcp,fc
case_tmo=900 fio_tmo=60 smp=2 kdir=${KDIR:-} out=
while [ $# -gt 0 ]; do
	case $1 in
	--groups|--cases|--transports|--case-timeout|--fio-timeout|--smp|--kdir)
		[ $# -ge 2 ] || { usage >&2; exit 2; } ;;&
	--groups) groups=$2 groups_set=1; shift 2 ;;
	--cases) cases=$2; shift 2 ;;
	--transports) trtypes=$2; shift 2 ;;
	--case-timeout) case_tmo=$2; shift 2 ;;
	--fio-timeout) fio_tmo=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--kdir) kdir=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) usage >&2; exit 2 ;;
	*) [ -z "$out" ] || { usage >&2; exit 2; }; out=$1; shift ;;
	esac
done
[ -n "$out" ] || { usage >&2; exit 2; }
[[ $case_tmo =~ ^[1-9][0-9]*$ ]] || die "--case-timeout: seconds, not '$case_tmo'"
[[ $fio_tmo =~ ^[1-9][0-9]*$ ]] || die "--fio-timeout: seconds, not '$fio_tmo'"
[[ $smp =~ ^[1-8]$ ]] || die "--smp: 1 to 8, not '$smp'"
for t in ${trtypes//,/ }; do
	case $t in loop|tcp|fc) ;; *) die "--transports: loop, tcp or fc, not '$t'" ;; esac
done
bt=${BB_BLKTESTS:-}
[ -n "$bt" ] || die "BB_BLKTESTS: name a blktests checkout (git clone https://github.com/linux-blktests/blktests)"
[ -x "$bt/check" ] && [ -d "$bt/tests/block" ] || die "BB_BLKTESTS=$bt: not a blktests checkout (no ./check, tests/block)"
[ -z "$kdir" ] || [ -f "$kdir/Makefile" ] || die "--kdir $kdir: not a kernel tree"
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	die "$out exists and is not empty; pick a new directory"
fi
# The cases: a group is upstream's cases only; --cases may also name the
# series' own (blktests/tests/block), which mkinitramfs.sh adds.  With
# --cases alone, only those; with both, those, then the groups' cases.
todo=()
for c in ${cases//,/ }; do
	[[ $c =~ ^[a-z]+/[0-9]{3}$ ]] &&
		{ [ -f "$bt/tests/$c" ] || [ -f "$BB_TOP/blktests/tests/$c" ]; } ||
		die "--cases: no case '$c' in $bt/tests or blktests/tests"
	todo+=("$c")
done
if [ -z "$cases" ] || [ "$groups_set" = 1 ]; then
	for g in ${groups//,/ }; do
		[ -d "$bt/tests/$g" ] || die "--groups: no group '$g' in $bt/tests"
		todo+=($(cd "$bt/tests" && ls -d "$g"/[0-9][0-9][0-9]))
	done
fi
[ ${#todo[@]} -gt 0 ] || die "no cases to run"
"$BB_TOP/scripts/install-deps.sh" --blktests || exit 1
out=$(realpath -m "$out")
mkdir -p "$out" || die "cannot create $out"
export BB_OUT=$out
list=$out/cases.txt
printf '%s\n' "${todo[@]}" > "$list" || die "cannot write $list"

bb_meta_begin "$out" "${argv[@]}" || die "cannot write $out/meta.txt"
bb_meta blktests "$(git -C "$bt" log -1 --format='%H %s' 2>/dev/null || echo '(not a git checkout)')$([ -z "$(git --no-optional-locks -C "$bt" status --porcelain 2>/dev/null)" ] || echo ' (with local changes)')"
bb_meta cases "$(wc -l < "$list"), nvme transports ${trtypes//,/ }, ${case_tmo}s per case, fio ${fio_tmo}s (TIMEOUT), $smp vCPUs per guest, both guests at once"

stage fetch "$BB_TOP/scripts/fetch-base.sh" > /dev/null || exit 1
series=$(stage apply "$BB_TOP/scripts/apply-series.sh" ${kdir:+--kdir "$kdir"}) || exit 1
base=$(bb_base_worktree "$series") || die "cannot set up the base tree"
bb_meta "series head" "$(git -C "$series" log -1 --format='%H %s')"
bb_meta base "$(git -C "$base" log -1 --format='%H %s')"
frags=(-f "$BB_TOP/configs/nvme-fabrics.config" -f "$BB_TOP/configs/blktests.config")
ex=$out/extra
mkdir -p "$ex" && cp "$BB_TOP/scripts/guest/blktests-upstream" "$ex/run" &&
	cp "$list" "$ex/cases" &&
	printf 'NVMET_TRTYPES="%s"\nCASE_TIMEOUT=%s\nFIO_TIMEOUT=%s\n' \
		"${trtypes//,/ }" "$case_tmo" "$fio_tmo" > "$ex/params" ||
	die "cannot write $ex"
obj_base=$(bb_obj_dir "$base" obj-blktests) obj_series=$(bb_obj_dir "$series" obj-blktests)
for k in base series; do
	eval tree=\$$k obj=\$obj_$k
	stage "build-$k" "$BB_TOP/scripts/build.sh" -m "${frags[@]}" "$tree" "$obj" \
		> "$out/$k.bzImage.path" || exit 1
done

# blktests' programs (src/), built in a copy (the checkout is only read),
# against the series' uapi headers (Debian 12's lack the ublk commands
# that its miniublk needs) and the liburing of the ublk selftests, linked
# statically (and libstdc++): the guest has neither.  $(shell) in its
# Makefile needs bash (echo -e).
copy=$out/blktests
make -s -C "$series" O="$obj_series" ARCH=x86_64 headers > /dev/null ||
	die "'make headers' in $obj_series failed"
uring=$("$BB_TOP/scripts/install-liburing.sh") || die "no liburing for blktests' programs"
uring=$uring/root/usr
mkdir -p "$copy" && tar -C "$bt" --exclude=./.git --exclude=./results --exclude=./config -cf - . |
	tar -C "$copy" -xf - || die "cannot copy $bt"
# programs already built in the checkout would be taken as up to date
make -s -C "$copy" clean > /dev/null 2>&1
stage blktests-build make -C "$copy" SHELL=/bin/bash \
	CFLAGS="-isystem $obj_series/usr/include -isystem $uring/include" \
	URING_LIBS="-lpthread $uring/lib/x86_64-linux-gnu/liburing.a" \
	LDFLAGS="-static-libstdc++ -static-libgcc" \
	> "$out/blktests-build.log" 2>&1 ||
	die "blktests' programs did not build (see $out/blktests-build.log)"
! grep -q '^Skip' "$out/blktests-build.log" ||
	warn "blktests: $(grep '^Skip' "$out/blktests-build.log" | tr '\n' ' ')"
for k in base series; do
	eval obj=\$obj_$k
	# the modules differ: one initramfs per kernel, the same blktests;
	# no kselftests (-K): the guest runs only the cases
	BB_BLKTESTS=$copy stage "initramfs-$k" "$BB_TOP/scripts/mkinitramfs.sh" \
		-K -m "$obj/modroot" "$series" "$out/$k.cpio.gz" "$ex" > /dev/null || exit 1
done

# Both guests at once, so that both see the same machine and load.
# Bound: every case at its limit, plus boot.  An interrupted run takes
# its guests with it (boot.sh kills its QEMU on TERM).
tmo=$(( $(wc -l < "$list") * (case_tmo + 15) + 300 ))
pid_base= pid_series=
trap 'kill $pid_base $pid_series 2>/dev/null' EXIT
trap 'exit 130' INT TERM
for k in base series; do
	# TEST_DEVS for the test_device() cases: a namespace of QEMU's NVMe
	# controller, with a poll queue (block/007, the nvme cases on PCI),
	# and a SCSI disk on virtio-scsi; sparse images, removed at the end
	truncate -s 1G "$out/$k-nvme.img" "$out/$k-vscsi.img" ||
		die "cannot create the scratch disks in $out"
	"$BB_TOP/scripts/boot.sh" -s "$smp" -m 4G -t "$tmo" -x bb.mode=bench \
		-x nvme.poll_queues=1 -d "nvme:$out/$k-nvme.img,queues=2" \
		-d "virtio-scsi:$out/$k-vscsi.img" \
		"$(cat "$out/$k.bzImage.path")" "$out/$k.cpio.gz" "$out/$k.log" &
	eval "pid_$k=$!"
done
info "booted base and series: $(wc -l < "$list") cases each, at most ${tmo}s; consoles in $out/{base,series}.log"
bad=0
for k in base series; do
	eval wait \$pid_$k
	tr -d '\r' < "$out/$k.log" > "$out/$k.log.txt"
	grep -q '^BB-BT-END' "$out/$k.log.txt" || { warn "$k: the guest did not finish its cases"; bad=1; }
	blktests_verdicts "$out/$k.log.txt" > "$out/$k.txt"
done

blktests_table "$out/base.txt" "$out/series.txt" > "$out/table.md"
trap - EXIT
for k in base series; do
	bb_meta "$k verdicts" "$(cut -d'|' -f3 "$out/$k.txt" | sort | uniq -c | awk '{ $1 = $1; printf "%s%s", sep, $0; sep = ", " }')"
done
ndiff=$(grep -cF '**differs**' "$out/table.md")
bb_meta differences "$ndiff"
bb_meta_end
rm -f "$out"/*.cpio.gz "$out"/*.img "$out/base.log" "$out/series.log"
info "$(grep -c '^| [a-z]*/' "$out/table.md") rows, $ndiff differ: $out/table.md (consoles: $out/{base,series}.log.txt)"
[ "$ndiff" -eq 0 ] && [ "$bad" -eq 0 ]
