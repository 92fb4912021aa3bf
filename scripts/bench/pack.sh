#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write a self-contained benchmark bundle: the base and the patched kernel,
# the benchmark initramfs, this machine's QEMU with the libraries, loader and
# firmware it needs, the scripts that run the guests and write the report
# (DIR/scripts/: lib.sh, the launcher boot.sh, bench/run-guests.sh,
# bench/report.sh, bench/table.awk, where they are in this tree), and
# DIR/run.sh to start it.
# The bundle runs on any x86_64 Linux machine (no packages needed there),
# with KVM where /dev/kvm works: for numbers from more CPUs than a 2-core
# TCG host has.  Called by 'scripts/run.sh --pack DIR'.
#
# usage: pack.sh DIR BASE-BZIMAGE PATCHED-BZIMAGE INITRAMFS

set -u
. "$(dirname "$0")/../lib.sh"

[ $# -eq 4 ] || { echo "usage: $0 DIR BASE-BZIMAGE PATCHED-BZIMAGE INITRAMFS" >&2; exit 2; }
dir=$1
need_tools qemu-system-x86_64 ldd
qemu=$(command -v qemu-system-x86_64)
[ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ] &&
	die "$dir exists and is not empty; pick a new directory"
mkdir -p "$dir/qemu/bin" "$dir/qemu/lib" "$dir/qemu/share" || die "cannot create $dir"

cp "$2" "$dir/base.bzImage" && cp "$3" "$dir/patched.bzImage" &&
	cp "$4" "$dir/initramfs.cpio.gz" || die "cannot copy the kernels or the initramfs"
mkdir -p "$dir/scripts/bench" || die "cannot create $dir/scripts/bench"
for f in lib.sh boot.sh bench/run-guests.sh bench/report.sh bench/table.awk; do
	cp -p "$BB_TOP/scripts/$f" "$dir/scripts/$f" || die "cannot copy scripts/$f"
done

# QEMU, every library it loads and the dynamic loader, so that the host's
# own libc does not matter: the wrapper starts QEMU through our loader.
cp "$qemu" "$dir/qemu/bin/" || die "cannot copy $qemu"
loader=
for lib in $(ldd "$qemu" | grep -oE '/[^ ]+'); do
	cp -L "$lib" "$dir/qemu/lib/" || die "cannot copy $lib"
	case $lib in */ld-linux-x86-64.so.*) loader=$(basename "$lib") ;; esac
done
[ -n "$loader" ] || die "no dynamic loader in 'ldd $qemu'"
# Accelerators are loadable modules in Debian's QEMU (accel-tcg-x86_64.so).
mkdir -p "$dir/qemu/modules"
for m in /usr/lib/x86_64-linux-gnu/qemu/accel-*x86_64.so; do
	[ -e "$m" ] || continue
	cp "$m" "$dir/qemu/modules/"
	for lib in $(ldd "$m" | grep -oE '/[^ ]+'); do
		[ -e "$dir/qemu/lib/$(basename "$lib")" ] || cp -L "$lib" "$dir/qemu/lib/"
	done
done
# Firmware: the BIOS and option ROMs QEMU loads for a -kernel boot of a
# pc machine without VGA or NIC (boot.sh: -vga none -nic none).
for f in /usr/share/seabios/bios-256k.bin /usr/share/qemu/kvmvapic.bin \
	 /usr/share/qemu/linuxboot.bin /usr/share/qemu/linuxboot_dma.bin \
	 /usr/share/qemu/multiboot.bin /usr/share/qemu/multiboot_dma.bin \
	 /usr/share/qemu/pvh.bin; do
	[ -e "$f" ] && cp -L "$f" "$dir/qemu/share/"
done
[ -e "$dir/qemu/share/bios-256k.bin" ] || die "no bios-256k.bin found under /usr/share/qemu"

cat > "$dir/qemu/qemu" <<EOT
#!/bin/sh
d=\$(cd "\$(dirname "\$0")" && pwd)
export QEMU_MODULE_DIR="\$d/modules"
exec "\$d/lib/$loader" --library-path "\$d/lib" "\$d/bin/qemu-system-x86_64" -L "\$d/share" "\$@"
EOT
cat > "$dir/run.sh" <<'EOT'
#!/bin/bash
# block-batch benchmark bundle: base and patched kernel, interleaved.
# usage: run.sh [-a kvm|tcg] [-s SMP] [-r ROUNDS] [-x "bb.jobs=1,8,32"] [-o OUTDIR]
# Defaults: KVM if /dev/kvm is usable, else TCG; SMP = number of CPUs (at
# most 16); 8 rounds; output in ./out (table, CSV, JSON, plots with
# gnuplot).  See scripts/bench/run-guests.sh.
d=$(cd "$(dirname "$0")" && pwd)
accel=tcg
[ -w /dev/kvm ] && accel=kvm
smp=$(nproc); [ "$smp" -gt 16 ] && smp=16
args=(-a "$accel" -s "$smp" -o "$PWD/out")
exec "$d/scripts/bench/run-guests.sh" -q "$d/qemu/qemu" "${args[@]}" "$@" \
	"$d/base.bzImage" "$d/patched.bzImage" "$d/initramfs.cpio.gz"
EOT
chmod +x "$dir/qemu/qemu" "$dir/run.sh"
"$dir/qemu/qemu" -version >/dev/null || die "the packed QEMU does not start"
info "bundle in $dir ($(du -sh "$dir" | cut -f1)): run $dir/run.sh there"
