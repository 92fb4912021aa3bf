#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test guest's initramfs: busybox, bash, coreutils' timeout (the
# kselftest runner wants --foreground), fio and dmsetup with their libraries,
# the installed block-batch kselftests and scripts/guest/init.
#
# usage: mkinitramfs.sh [-m MODROOT] KTREE OUT.cpio.gz [EXTRA-DIR]
#   EXTRA-DIR, if given, is copied to /extra in the guest (benchmark scripts).
#   -m MODROOT: the kernel's installed modules (build.sh -m puts them in
#   O_DIR/modroot), copied to /lib/modules with kmod's modprobe.

set -u
. "$(dirname "$0")/lib.sh"

modroot=
while getopts "m:" opt; do
	case $opt in
	m) modroot=$OPTARG ;;
	*) echo "usage: $0 [-m MODROOT] KTREE OUT.cpio.gz [EXTRA-DIR]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: $0 [-m MODROOT] KTREE OUT.cpio.gz [EXTRA-DIR]" >&2; exit 2; }
[ -z "$modroot" ] || [ -d "$modroot/lib/modules" ] ||
	die "-m $modroot: no lib/modules there (build with scripts/build.sh -m)"
ktree=$1
out=$(realpath -m "$2")
extra=${3:-}
# dmsetup is in /usr/sbin, which may not be in a user's PATH.
PATH=$PATH:/usr/sbin:/sbin
need_tools busybox bash fio timeout dmsetup cpio gzip ldd make rsync
busybox=$(command -v busybox)
file -L "$busybox" 2>/dev/null | grep -q 'dynamically linked' &&
	die "$busybox is not static; install busybox-static"
[ -d "$ktree/tools/testing/selftests/block-batch" ] ||
	die "$ktree has no tools/testing/selftests/block-batch: is the series applied?"

root=$(mktemp -d "${TMPDIR:-/tmp}/bb-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root,run,var/tmp}

cp "$busybox" "$root/bin/busybox"
for a in $("$busybox" --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done

# copy_bin FILE DEST -- a dynamic binary and every library it needs
copy_bin() {
	local lib

	install -D -m 755 "$1" "$root$2"
	for lib in $(ldd "$1" | grep -oE '/[^ ]+'); do
		[ -e "$root$lib" ] || install -D -m 755 "$lib" "$root$lib"
	done
}
rm -f "$root/bin/bash" "$root/bin/timeout"
copy_bin "$(command -v bash)" /bin/bash
copy_bin "$(command -v fio)" /usr/bin/fio
copy_bin "$(command -v timeout)" /usr/bin/timeout
copy_bin "$(command -v dmsetup)" /usr/sbin/dmsetup
ln -sf ../../bin/bash "$root/usr/bin/bash"
ln -sf /bin/busybox "$root/sbin/init.busybox"
echo "root:x:0:0:root:/root:/bin/bash" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"

# The kselftests, installed the kselftest way (run_kselftest.sh + runner).
ksobj=$(mktemp -d "${TMPDIR:-/tmp}/bb-kselftest.XXXXXX")
if ! make -s -C "$ktree/tools/testing/selftests" TARGETS=block-batch \
	O="$ksobj" INSTALL_PATH="$root/kselftest" install >"$ksobj.log" 2>&1; then
	cat "$ksobj.log" >&2
	rm -rf "$ksobj" "$ksobj.log"
	die "kselftest install failed"
fi
rm -rf "$ksobj" "$ksobj.log"
[ -x "$root/kselftest/run_kselftest.sh" ] || die "kselftest install made no run_kselftest.sh"

# The blktests cases of the series (blktests/tests/block), run by a real
# blktests checkout when BB_BLKTESTS names one, else by blktests/shim.
bt=${BB_BLKTESTS:-$BB_TOP/blktests/shim}
[ -x "$bt/check" ] || die "no blktests ./check in $bt (BB_BLKTESTS)"
mkdir -p "$root/blktests"
cp -a "$bt/." "$root/blktests/" || die "cannot copy $bt"
cp "$BB_TOP"/blktests/tests/block/[0-9]* "$root/blktests/tests/block/" ||
	die "cannot copy the blktests cases"

[ -n "$extra" ] && cp -a "$extra" "$root/extra"
if [ -n "$modroot" ]; then
	need_tools kmod
	mkdir -p "$root/lib"
	cp -a "$modroot/lib/modules" "$root/lib/" || die "cannot copy the modules"
	copy_bin "$(command -v kmod)" /bin/kmod
	# The kernel's request_module() runs /sbin/modprobe.
	for a in modprobe insmod rmmod lsmod depmod modinfo; do
		rm -f "$root/sbin/$a" "$root/bin/$a"
		ln -s ../bin/kmod "$root/sbin/$a"
	done
fi
install -m 755 "$BB_TOP/scripts/guest/init" "$root/init"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) > "$out" ||
	die "cannot write $out"
info "initramfs $out: $(du -h "$out" | cut -f1)"
echo "$out"
