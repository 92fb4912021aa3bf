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
#               [--ublk "pc pc-b zc zc-b uc uc-b"] [--holds] [--no-lockstat]
#               [--disk null_blk|virtio-scsi|megasas] [--scsi-qd N] [--poll]
#               [--hdd]
#        run.sh --dev DEV --label base|patched [--write-destroys-data]
#               [--jobs ...] [--scheds ...] [--runtime S] [--rounds R] [--rw RW]
#   --rounds R   interleaved base/patched pairs (default 8: every ratio comes
#                with a 95% interval over the rounds, see scripts/bench/table.awk)
#   --ublk MODES instead of null_blk under each scheduler, kublk's null
#                target (the kernel's ublk selftests' server, built with
#                liburing from scripts/install-liburing.sh) in each MODE:
#                pc page copy, zc zero copy (--auto_zc), uc user copy (-u),
#                -b with UBLK_F_BATCH_IO (kublk -b)
#   --holds      instead of IOPS: the longest section with interrupts
#                disabled (bfq) and with preemption disabled (mq-deadline),
#                from the irqsoff and preemptoff tracers (configs/
#                tracers.config, a build of its own), at nr_requests 256 and
#                2048, on an emulated NVMe whose controller is reset while
#                fio keeps 2048 writes queued (scripts/bench/guest-bench.sh)
#   lock_stat    by default, after the IOPS build, a second pair of kernels
#                with configs/lockstat.config on top (lockdep's lock_stat,
#                which slows every lock, so its IOPS are not compared) runs
#                the same cases once each (base, patched) for the lock_stat
#                tables: scheduler lock and queue_lock acquisitions and
#                contentions per I/O, the longest hold, the hold time per
#                I/O, the ceiling it implies (I/Os per second of lock
#                time) and the lock's busy share, and, from a second fio
#                run of each case with the lock's acquire and release
#                traced, the scheduler lock's hold time per I/O by call
#                site (insert, dispatch, finish, bio merge, depth limit,
#                other).  Not with
#                --holds, --ublk or --pack, nor when -f already names
#                configs/lockstat.config (then the IOPS kernels carry it)
#   --no-lockstat  skip that build and its guests
#   --disk KIND  the disk under each scheduler: null_blk (default), or an
#                emulated SCSI disk in every guest, virtio-scsi (one request
#                queue per vCPU) or megasas (LSI MegaRAID SAS 2108, the
#                megaraid_sas driver), its queue_depth lowered to --scsi-qd
#                (default 16) so that completions rerun the queues (the
#                MegaRAID case of Ionut Nechita's "block/blk-mq: use atomic_t
#                for quiesce_depth to avoid lock contention on RT" (2026);
#                with -f configs/rt.config, on PREEMPT_RT).
#                Also reported: the time interrupt threads spend blocked
#                (IRQBLK lines, from sched_switch and sched_wakeup events;
#                only where handlers run in threads, as under PREEMPT_RT)
#   --poll       null_blk with a poll queue (poll_queues=1) and fio --hipri:
#                io_uring reaps completions by polling, and null_blk ends
#                them in batches (blk_mq_end_request_batch()), which the
#                series also uses for requests with scheduler tags (patches
#                17-19).  Output in out/<tag>-smpN-poll/
#   --hdd        an HDD stand-in instead of the default setup: null_blk
#                rotational, one hw queue of 32 tags, every request completed
#                by a timer after 100 ms (irqmode=2), and --jobs sequential
#                writers (default 8, --rw default write) at iodepth 32 with
#                one bio per submission, each in its own 128 MiB, so that
#                bios merge in the scheduler: the case in which the 2024
#                mq-deadline/bfq scalability series lost 72.9% of its write
#                IOPS.  The merges column is then the figure to read with
#                the IOPS.  Output in out/<tag>-smpN-hdd/
#   -f FRAGMENT  extra config fragment for both kernels (e.g. configs/rt.config)
#   --kdir DIR   (or KDIR=DIR) your kernel git tree instead of the cached
#                base: the series goes onto a new branch in a new worktree
#                under the cache (scripts/apply-series.sh --kdir), the base
#                kernel is the commit it was applied to; DIR's branch and
#                working tree are not touched
#   --debug      keep configs/debug.config (lockdep) in; off by default, as
#                lockdep dwarfs what is measured
#   --pack DIR   build only, and write a self-contained bundle to DIR (both
#                kernels, the initramfs, this machine's QEMU with its
#                libraries and firmware, scripts/bench/run-guests.sh and
#                the launcher scripts/boot.sh) to run the benchmark on a
#                bigger x86_64 machine: DIR/run.sh
#   --dev DEV    a real disk on the kernel this machine runs, no QEMU, no
#                build (scripts/bench/dev-bench.sh): run it on the base
#                kernel with --label base, on the patched one with --label
#                patched; the report compares them.  Read-only (randread,
#                default 3 rounds) unless --write-destroys-data; a disk
#                that is mounted, swap or held is refused.
# Output: out/<tag>-smpN/ (with -KIND for --disk, -poll for --poll, -hdd
# for --hdd;
# out/dev-DEV/ for --dev):
# table.md, summary.csv, summary.json, results.csv and PNG plots
# (scripts/bench/report.sh), the lock_stat guests' raw lines in
# lockstat/results.txt; with --holds, table.md and holds.csv.

set -u
. "$(dirname "$0")/lib.sh"
argv=("$0" "$@")

smp=2 jobs="1 4 16" scheds="none mq-deadline bfq" runtime=10 rounds=
irqmode=0 rw= frags=() kdir=${KDIR:-} nodebug=-n pack= ublk= dev= devargs=() holds=
# --holds: the nr_requests values measured, and the controller resets per case
holds_nr="256 2048" holds_resets=4
lockstat=1 disk=null_blk scsi_qd=16 poll=0 hdd=0 jobs_given=
usage() {
	echo "usage: $0 [--smp N] [--jobs LIST] [--scheds LIST] [--runtime S] [--rounds R] [--irqmode M] [--rw RW] [-f FRAG] [--debug] [--kdir DIR] [--pack DIR] [--ublk MODES] [--holds] [--no-lockstat] [--disk KIND] [--scsi-qd N] [--poll] [--hdd]" >&2
	echo "       $0 --dev DEV --label base|patched [--write-destroys-data] [--jobs LIST] [--scheds LIST] [--runtime S] [--rounds R] [--rw RW]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--smp|--jobs|--scheds|--runtime|--rounds|--irqmode|--rw|-f|--kdir|--pack|--ublk|--dev|--label|--disk|--scsi-qd)
		[ $# -ge 2 ] || die "$1 needs an argument" ;;
	esac
	case $1 in
	--smp) smp=$2; shift 2 ;;
	--jobs) jobs=${2//,/ } jobs_given=1; shift 2 ;;
	--scheds) scheds=${2//,/ }; shift 2 ;;
	--runtime) runtime=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--irqmode) irqmode=$2; shift 2 ;;
	--rw) rw=$2; shift 2 ;;
	-f) [ -r "$2" ] || die "-f $2: no such config fragment"
	    frags+=(-f "$(realpath "$2")"); shift 2 ;;
	--kdir) kdir=$2; shift 2 ;;
	--debug) nodebug=; shift ;;
	--holds) holds=1; shift ;;
	--no-lockstat) lockstat=; shift ;;
	--disk) disk=$2; shift 2 ;;
	--scsi-qd) scsi_qd=$2; shift 2 ;;
	--poll) poll=1; shift ;;
	--hdd) hdd=1; shift ;;
	--pack) pack=$2; shift 2 ;;
	--ublk) ublk=$2; shift 2 ;;
	--dev) dev=$2; shift 2 ;;
	--label) devargs+=(--label "$2"); shift 2 ;;
	--write-destroys-data) devargs+=("$1"); shift ;;
	-h|--help) bb_help "$0"; exit 0 ;;
	*) usage ;;
	esac
done
# Every argument is checked here, before anything is fetched or built.
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 '$2': not a positive number"; }
posint --smp "$smp"
posint --runtime "$runtime"
[ -z "$rounds" ] || posint --rounds "$rounds"
[ -n "$jobs" ] || die "--jobs: empty"
for j in $jobs; do posint "--jobs: job count" "$j"; done
[ -n "$scheds" ] || die "--scheds: empty"
for s in $scheds; do
	case $s in
	none|mq-deadline|bfq|kyber) ;;
	*) die "--scheds: unknown scheduler '$s' (none, mq-deadline, bfq, kyber)" ;;
	esac
done
posint --scsi-qd "$scsi_qd"
case $disk in
null_blk) ;;
virtio-scsi|megasas)
	[ -z "$pack$ublk$holds$dev" ] || die "--disk $disk: no --pack, --ublk, --holds or --dev" ;;
*) die "--disk: null_blk, virtio-scsi or megasas, not '$disk'" ;;
esac
if [ "$poll" = 1 ]; then
	[ "$disk" = null_blk ] && [ -z "$ublk$holds$dev" ] ||
		die "--poll: null_blk only (no --disk, --ublk, --holds or --dev)"
fi
if [ "$hdd" = 1 ]; then
	[ "$disk" = null_blk ] && [ -z "$ublk$holds$dev" ] && [ "$poll" = 0 ] ||
		die "--hdd: null_blk only (no --disk, --ublk, --holds, --dev or --poll)"
	[ -n "$jobs_given" ] || jobs=8
	rw=${rw:-write}
fi
[[ $irqmode =~ ^[012]$ ]] || die "--irqmode '$irqmode': 0 (none), 1 (softirq) or 2 (timer)"
if [ -n "$dev" ]; then
	[ -z "$pack$ublk$kdir$holds" ] && [ ${#frags[@]} -eq 0 ] ||
		die "--dev runs on the booted kernel: no --pack, --ublk, --holds, --kdir or -f"
	exec "$BB_TOP/scripts/bench/dev-bench.sh" "${devargs[@]}" ${rw:+--rw "$rw"} \
		--scheds "$scheds" --jobs "$jobs" --runtime "$runtime" \
		--rounds "${rounds:-3}" -o "$BB_OUT/dev-$(basename "$dev")" "$dev"
fi
[ ${#devargs[@]} -eq 0 ] || die "--label and --write-destroys-data go with --dev"
if [ -n "$holds" ]; then
	[ -z "$pack$ublk" ] || die "--holds: no --pack or --ublk"
	frags+=(-f "$BB_TOP/configs/tracers.config")
fi
rounds=${rounds:-8} rw=${rw:-randwrite}
case $rw in
read|randread|write|randwrite|rw|randrw|readwrite) ;;
*) die "--rw: a fio rw mode (randwrite, randread, ...), not '$rw'" ;;
esac
[ -z "$kdir" ] || [ -f "$kdir/Makefile" ] || die "--kdir $kdir: not a kernel tree"
if [ -n "$pack" ] && [ -e "$pack" ] && [ -n "$(ls -A "$pack" 2>/dev/null)" ]; then
	die "--pack $pack exists and is not empty; pick a new directory"
fi
ublk=${ublk//,/ }
for m in $ublk; do
	case $m in
	pc|pc-b|zc|zc-b|uc|uc-b) ;;
	*) die "--ublk: unknown mode '$m' (pc, pc-b, zc, zc-b, uc, uc-b)" ;;
	esac
done
[ -z "$ublk" ] || scheds=$(for m in $ublk; do printf 'ublk-%s ' "$m"; done)

"$BB_TOP/scripts/install-deps.sh" --bench || exit 1
mkdir -p "$BB_OUT"
: > "$BB_OUT/stages.txt"
tag=bench${nodebug:--debug}
for ((i = 1; i < ${#frags[@]}; i += 2)); do
	tag+=-$(basename "${frags[i]}" .config)
	[ "$(basename "${frags[i]}")" != lockstat.config ] || lockstat=
done
[ -z "$holds$ublk$pack" ] || lockstat=

stage fetch "$BB_TOP/scripts/fetch-base.sh" >/dev/null || exit 1
patched=$(stage apply "$BB_TOP/scripts/apply-series.sh" ${kdir:+--kdir "$kdir"}) || exit 1
# The base: the tree the series was applied to, in a worktree of its own.
base=$(bb_base_worktree "$patched") || die "cannot set up the base tree"

for k in base patched; do
	eval tree=\$$k
	stage "build-$k" "$BB_TOP/scripts/build.sh" $nodebug "${frags[@]}" "$tree" \
		"$(bb_obj_dir "$tree" "obj-$tag")" > "$BB_OUT/$tag-$k.bzImage" || exit 1
	[ -n "$lockstat" ] || continue
	stage "build-$k-lockstat" "$BB_TOP/scripts/build.sh" $nodebug "${frags[@]}" \
		-f "$BB_TOP/configs/lockstat.config" "$tree" \
		"$(bb_obj_dir "$tree" "obj-$tag-lockstat")" > "$BB_OUT/$tag-lockstat-$k.bzImage" || exit 1
done
# One initramfs for both kernels: the guest learns which kernel it runs
# from the command line (bb.kernel=, set by run-guests.sh).
ex=$BB_OUT/$tag-extra
rm -rf "$ex" && mkdir -p "$ex"
cp "$BB_TOP/scripts/bench/guest-bench.sh" "$ex/run" &&
	cp "$BB_TOP/scripts/bench/fio-case.sh" "$ex/" || die "cannot write $ex"
cat > "$ex/params" <<EOT
KERNEL=unknown
SCHEDS="$scheds"
JOBS="$jobs"
RUNTIME=$runtime
IRQMODE=$irqmode
RW=$rw
UBLK_MODES="$ublk"
HOLDS_NR="${holds:+$holds_nr}"
HOLDS_RESETS=$holds_resets
DISK=$disk
SCSI_QD=$scsi_qd
POLL=$poll
HDD=$hdd
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
guest_disk=()
if [ -n "$holds" ]; then
	# 2 cases (bfq, mq-deadline) per nr_requests; a namespace of its own
	ncase=$(( 2 * $(wc -w <<<"$holds_nr") ))
	truncate -s 256M "$BB_OUT/$tag-nvme.img" || die "cannot create $BB_OUT/$tag-nvme.img"
	guest_disk=(-d "nvme:$BB_OUT/$tag-nvme.img,queues=2")
elif [ "$disk" != null_blk ]; then
	# non-rotational, like null_blk; virtio-scsi: a request queue per vCPU
	truncate -s 1G "$BB_OUT/$tag-$disk.img" || die "cannot create $BB_OUT/$tag-$disk.img"
	guest_disk=(-d "$disk:$BB_OUT/$tag-$disk.img,nonrot")
	[ "$disk" = megasas ] || guest_disk[1]+=",queues=$smp"
fi
out=$BB_OUT/$tag-smp$smp lsres=()
[ "$disk" = null_blk ] || out+=-$disk
[ "$poll" = 0 ] || out+=-poll
[ "$hdd" = 0 ] || out+=-hdd
# The record's provenance (meta.txt), with the machine's factor.
bb_meta_begin "$out" "${argv[@]}" || die "cannot write $out/meta.txt"
bb_meta "series head" "$(git -C "$patched" log -1 --format='%H %s')"
bb_meta "base" "$(git -C "$base" log -1 --format='%H %s')"
if [ -n "$lockstat" ]; then
	# one guest per kernel: counts, hold times and the lock's busy share,
	# not IOPS.  Two fio runs per case whose scheduler lock lock_stat saw
	# (lock_stat, then the traced hold sites).  A failed guest
	# leaves its cases out of the lock_stat table, not the IOPS run.
	stage boot-lockstat "$BB_TOP/scripts/bench/run-guests.sh" -l -s "$smp" -r 1 \
		-n "$ncase" -t $(( ncase * (2 * runtime + 90) + 180 )) -o "$out/lockstat" "${guest_disk[@]}" \
		"$(cat "$BB_OUT/$tag-lockstat-base.bzImage")" \
		"$(cat "$BB_OUT/$tag-lockstat-patched.bzImage")" "$BB_OUT/$tag.cpio.gz" ||
		echo "block-batch: the lock_stat guests did not all finish; their table is partial" >&2
	lsres=(-L "$out/lockstat/results.txt")
fi
# per case: fio's runtime, setup, and with --disk the trace's parse; per
# guest: boot, and with --disk up to 30 s for the SCSI scan
slack=30 gslack=120
[ "$disk" = null_blk ] || slack=60 gslack=180
stage boot "$BB_TOP/scripts/bench/run-guests.sh" -s "$smp" -r "$rounds" -n "$ncase" \
	-t $(( ncase * (runtime + slack) + gslack )) -o "$out" "${guest_disk[@]}" \
	"${lsres[@]}" "$(cat "$BB_OUT/$tag-base.bzImage")" \
	"$(cat "$BB_OUT/$tag-patched.bzImage")" "$BB_OUT/$tag.cpio.gz"
rc=$?
if [ -n "$holds" ]; then
	echo "(fio $rw 4k io_uring 4 jobs x iodepth 512, ${runtime}s per case, up to $holds_resets NVMe controller resets per case)"
elif [ -n "$ublk" ]; then
	echo "(fio $rw 4k io_uring iodepth 32, ${runtime}s per case, kublk null target)"
elif [ "$disk" != null_blk ]; then
	echo "(fio $rw 4k io_uring iodepth 32, ${runtime}s per case, $disk disk, queue_depth $scsi_qd)"
elif [ "$hdd" = 1 ]; then
	echo "(fio $rw 4k io_uring iodepth 32, one bio per submission, a region per job, ${runtime}s per case, HDD stand-in: null_blk rotational, 32 tags, 100 ms timer completions)"
else
	echo "(fio $rw 4k io_uring iodepth 32, ${runtime}s per case, null_blk irqmode=$irqmode)"
fi
echo "stage times:"; sed 's/^/  /' "$BB_OUT/stages.txt"
bb_meta_end
sed 's/^/stage: /' "$BB_OUT/stages.txt" >> "$out/meta.txt"
echo "(provenance: $out/meta.txt)"
exit $rc
