#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test guest's initramfs: busybox, bash, coreutils' timeout (the
# kselftest runner wants --foreground), fio and dmsetup with their libraries,
# the installed block-batch kselftests, scripts/guest/init and
# scripts/guest/ublk-watch.
#
# usage: mkinitramfs.sh [-K] [-m MODROOT] [-u OBJ] KTREE OUT.cpio.gz [EXTRA-DIR]
#   EXTRA-DIR, if given, is copied to /extra in the guest (benchmark scripts).
#   -K: no block-batch kselftests, for a guest that runs only /extra/run
#   (bb.mode=bench), so KTREE need not have them (a series without them).
#   -m MODROOT: the kernel's installed modules (build.sh -m puts them in
#   O_DIR/modroot), copied to /lib/modules with kmod's modprobe.
#   -u OBJ: also the kernel tree's own ublk kselftests (kublk), built against
#   the uapi headers of build directory OBJ ("make headers" there) and a
#   liburing of 2.4 or later (scripts/install-liburing.sh, linked statically),
#   with what they run: mkfs.ext4, lsblk, strace, coreutils' mktemp and
#   realpath, and a udevadm for "settle".
# The blktests cases go to /blktests with blktests/shim's ./check, or with
# the blktests checkout named by BB_BLKTESTS and the tools its ./check
# needs that busybox lacks (mktemp, realpath, find, grep, column, findmnt,
# getconf, gawk, udevadm), and the tools its cases run (nvme-cli,
# losetup, blkzone, xfs_io, ...) where this host has them.

set -u
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: $0 [-K] [-m MODROOT] [-u OBJ] KTREE OUT.cpio.gz [EXTRA-DIR]" >&2
	exit 2
}
modroot= ublk_obj= selftests=1
while getopts "Km:u:" opt; do
	case $opt in
	K) selftests=0 ;;
	m) modroot=$OPTARG ;;
	u) ublk_obj=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || usage
[ -z "$modroot" ] || [ -d "$modroot/lib/modules" ] ||
	die "-m $modroot: no lib/modules there (build with scripts/build.sh -m)"
[ -z "$ublk_obj" ] || [ -f "$ublk_obj/.config" ] ||
	die "-u $ublk_obj: not a configured kernel build directory"
[ $selftests -eq 1 ] || [ -z "$ublk_obj" ] || die "-K and -u: the ublk selftests are kselftests"
ktree=$1
out=$(realpath -m "$2")
extra=${3:-}
# dmsetup is in /usr/sbin, which may not be in a user's PATH.
PATH=$PATH:/usr/sbin:/sbin
need_tools busybox bash fio timeout dmsetup cpio gzip ldd make rsync
busybox=$(command -v busybox)
file -L "$busybox" 2>/dev/null | grep -q 'dynamically linked' &&
	die "$busybox is not static; install busybox-static"
[ $selftests -eq 0 ] || [ -d "$ktree/tools/testing/selftests/block-batch" ] ||
	die "$ktree has no tools/testing/selftests/block-batch: is the series applied?"
targets=block-batch ksflags=()
if [ -n "$ublk_obj" ]; then
	[ -f "$ktree/tools/testing/selftests/ublk/Makefile" ] ||
		die "-u: $ktree has no tools/testing/selftests/ublk"
	need_tools mkfs.ext4 lsblk strace
	bb_ublk_selftest_flags "$ktree" "$ublk_obj" ||
		die "-u: cannot build the ublk selftests"
	targets+=" ublk"
	ksflags=("${BB_UBLK_MAKEFLAGS[@]}")
fi

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
# add_udevadm -- a udevadm whose "settle" returns at once.  The guest has
# no udev: devtmpfs makes a disk's node (/dev/ublkbN, /dev/nullbN) when
# the disk is added, so "udevadm settle" has nothing to wait for.
add_udevadm() {
	printf '%s\n' '#!/bin/sh' \
		'# block-batch guest: no udev; devtmpfs creates the nodes' \
		'case $1 in settle) exit 0 ;; esac' \
		'echo "udevadm: only settle is supported in this guest" >&2; exit 1' \
		> "$root/usr/bin/udevadm"
	chmod 755 "$root/usr/bin/udevadm"
}
# add_systemctl -- for blktests' udev helpers (loop/010 stops and starts
#   systemd-udevd around its race): a systemctl that keeps only whether
#   "systemd-udevd" is stopped; there is no udevd to stop.  Other units
#   are not there (never active, not started; list-unit-files prints
#   none), and its --version is 0, older than any version a case
#   requires.  The unit is the last argument.
add_systemctl() {
	printf '%s\n' '#!/bin/sh' \
		'# block-batch guest: no systemd, no udevd; keeps only a stopped flag' \
		'f=/run/bb-udevd-stopped' \
		'while [ "${1#-}" != "$1" ]; do' \
		'	case $1 in --version) echo "systemd 0"; exit 0 ;; esac' \
		'	shift' \
		'done' \
		'for u; do :; done' \
		'case $1 in' \
		'is-active) [ "$u" = systemd-udevd ] && [ ! -e $f ] ;;' \
		'stop|mask) [ "$u" = systemd-udevd ] && mkdir -p /run && : > $f ;;' \
		'start|unmask) [ "$u" = systemd-udevd ] && rm -f $f ;;' \
		'list-unit-files) exit 0 ;;' \
		'*) exit 1 ;;' \
		'esac' > "$root/usr/bin/systemctl"
	chmod 755 "$root/usr/bin/systemctl"
}
# add_dmsetup -- dmsetup with the /dev/mapper links that udev's rules make:
#   without udev, libdm makes no /dev/mapper/NAME, and blktests finds a dm
#   device's sysfs name (dm-N) through that link.  The real dmsetup runs,
#   then each dm device gets its link to /dev/dm-N and links to removed
#   devices go.
add_dmsetup() {
	mv "$root/usr/sbin/dmsetup" "$root/usr/sbin/dmsetup.bin"
	printf '%s\n' '#!/bin/sh' \
		'# block-batch guest: /dev/mapper links as udev would make them' \
		'/usr/sbin/dmsetup.bin "$@"' \
		'rc=$?' \
		'for n in /dev/mapper/*; do' \
		'	[ -L "$n" ] && [ ! -e "$n" ] && rm -f "$n"' \
		'done' \
		'for d in /sys/block/dm-*; do' \
		'	[ -r "$d/dm/name" ] || continue' \
		'	n=/dev/mapper/$(cat "$d/dm/name")' \
		'	[ -e "$n" ] || ln -s "../${d##*/}" "$n"' \
		'done' \
		'exit $rc' > "$root/usr/sbin/dmsetup"
	chmod 755 "$root/usr/sbin/dmsetup"
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
if [ $selftests -eq 1 ]; then
	ksobj=$(mktemp -d "${TMPDIR:-/tmp}/bb-kselftest.XXXXXX")
	if ! make -s -C "$ktree/tools/testing/selftests" TARGETS="$targets" "${ksflags[@]}" \
		O="$ksobj" INSTALL_PATH="$root/kselftest" install >"$ksobj.log" 2>&1; then
		cat "$ksobj.log" >&2
		rm -rf "$ksobj" "$ksobj.log"
		die "kselftest install failed"
	fi
	rm -rf "$ksobj" "$ksobj.log"
	[ -x "$root/kselftest/run_kselftest.sh" ] || die "kselftest install made no run_kselftest.sh"
fi
if [ -n "$ublk_obj" ]; then
	[ -x "$root/kselftest/ublk/kublk" ] || die "-u: the ublk selftests' kublk was not built"
	copy_bin "$(command -v mkfs.ext4)" /sbin/mkfs.ext4
	copy_bin "$(command -v lsblk)" /usr/bin/lsblk
	# test_null_04 holds kublk del and its server in order with it
	copy_bin "$(command -v strace)" /usr/bin/strace
	# busybox's mktemp fails on their relative templates
	# (./ublktest-dir/TID.XXXXXX): coreutils' mktemp and realpath
	rm -f "$root/bin/mktemp" "$root/bin/realpath"
	copy_bin "$(command -v mktemp)" /usr/bin/mktemp
	copy_bin "$(command -v realpath)" /usr/bin/realpath
	add_udevadm
fi

# The blktests cases of the series (blktests/tests/block), run by a real
# blktests checkout when BB_BLKTESTS names one, else by blktests/shim.
bt=${BB_BLKTESTS:-$BB_TOP/blktests/shim}
[ -x "$bt/check" ] || die "no blktests ./check in $bt (BB_BLKTESTS)"
mkdir -p "$root/blktests"
cp -a "$bt/." "$root/blktests/" || die "cannot copy $bt"
rm -rf "$root/blktests/.git" "$root/blktests/results"
for c in "$BB_TOP"/blktests/tests/block/[0-9]*; do
	# a case of the checkout with the same number is not replaced
	[ ! -e "$root/blktests/tests/block/${c##*/}" ] ||
		cmp -s "$c" "$root/blktests/tests/block/${c##*/}" ||
		die "$bt has its own block/${c##*/}: number the series' cases after its newest"
done
cp "$BB_TOP"/blktests/tests/block/[0-9]* "$root/blktests/tests/block/" ||
	die "cannot copy the blktests cases"
if [ "$(realpath "$bt")" != "$(realpath "$BB_TOP/blktests/shim")" ]; then
	# blktests' ./check and common/ need more than busybox has:
	# coreutils' mktemp (--tmpdir) and realpath, GNU find (-delete) and
	# grep (--quiet), column, findmnt (_have_tracefs, _have_debugfs),
	# getconf, gawk, zgrep and gzip (its _get_kernel_option() reads
	# /proc/config.gz), and a udevadm.  They go to /usr/bin, before
	# busybox's /bin in the guest's PATH.
	bttools=(mktemp realpath find grep column findmnt getconf gawk zgrep gzip)
	for t in "${bttools[@]}"; do
		command -v "$t" > /dev/null ||
			die "BB_BLKTESTS: blktests' ./check needs $t in the guest, and this host has none (Debian: gawk, findutils, grep, bsdextrautils, util-linux, libc-bin, gzip)"
	done
	rm -f "$root/bin/mktemp" "$root/bin/realpath"
	for t in "${bttools[@]}"; do
		copy_bin "$(command -v "$t")" "/usr/bin/$t"
	done
	add_udevadm
	# Its cases also run nvme-cli, uuidgen and util-linux's losetup
	# (busybox's has no --show), blkzone, sfdisk and parted, xfs_io,
	# mkfs.xfs, mkfs.ext4, mkfs.ext2 and mkfs.vfat, blktrace, and the
	# GNU and util-linux date, dd, stat, readlink, truncate, sort, dmesg,
	# lsblk, blkid, mount, umount and mountpoint (busybox's lack what the
	# cases use: date's %N, by which the throtl cases time their I/O, dd's
	# silence on SIGUSR1 with status=none (block/016), stat --printf,
	# readlink --canonicalize, by which the nvme cases tell an NVMe
	# device, truncate --size, sort --unique, by which the fc transport's
	# cleanup lists its fcloop ports, dmesg -t (nvme/039), mount --types,
	# umount --lazy).
	# They go in where this host has them (install-deps.sh --blktests);
	# without them the cases that need them are "not run", with
	# blktests' own reason.
	for t in nvme uuidgen losetup blkzone blkdiscard blockdev partx wipefs \
		 sfdisk parted xfs_io mkfs.xfs mkfs.ext4 mkfs.ext2 mkfs.vfat \
		 blktrace bc date dd stat readlink truncate sort dmesg lsblk blkid \
		 mount umount mountpoint; do
		if command -v "$t" > /dev/null; then
			rm -f "$root/bin/$t" "$root/sbin/$t"
			copy_bin "$(command -v "$t")" "/usr/bin/$t"
		else
			info "BB_BLKTESTS: no $t on this host, blktests' cases that run it will not run (scripts/install-deps.sh --blktests)"
		fi
	done
	# mkfs.vfat converts its code page (CP850) through glibc's gconv
	# modules, which glibc finds at the path it was built with
	gconv=/usr/lib/$(gcc -print-multiarch 2>/dev/null)/gconv
	for f in gconv-modules gconv-modules.cache gconv-modules.d/gconv-modules-extra.conf IBM850.so; do
		if [ -e "$gconv/$f" ]; then
			install -D -m 644 "$gconv/$f" "$root$gconv/$f"
		else
			info "BB_BLKTESTS: no $gconv/$f on this host: mkfs.vfat will warn about its code page (loop/008)"
		fi
	done
	add_systemctl
	add_dmsetup
fi

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
install -m 755 "$BB_TOP/scripts/guest/ublk-watch" "$root/ublk-watch"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) > "$out" ||
	die "cannot write $out"
info "initramfs $out: $(du -h "$out" | cut -f1)"
echo "$out"
