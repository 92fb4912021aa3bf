#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A missing tool or an unreachable base: a clear message and a non-zero exit.
. "$(dirname "$0")/lib.sh"

# PATH with the basics but no git and no qemu
mkdir -p "$T/bin"
for t in bash sh sed awk grep cat dirname basename mkdir rm cp mv find sort \
	 head tail tr cut date realpath mktemp id env touch sha1sum; do
	ln -s "$(command -v $t)" "$T/bin/$t"
done
mk_fake_kernel "$T/linux"
mk_fake_series "$T/patches"
PATH=$T/bin BB_PATCHES=$T/patches expect_fail \
	"missing tool\(s\): git" "$TOP/scripts/apply-series.sh" --kdir "$T/linux"
touch "$T/bzImage" "$T/initrd"
PATH=$T/bin expect_fail "missing tool\(s\): qemu-system-x86_64" \
	"$TOP/scripts/boot.sh" "$T/bzImage" "$T/initrd" "$T/log"

# Unreachable archive, nothing cached: port 9 (discard) on loopback.
BB_DEBIAN_MIRROR=http://127.0.0.1:9/debian expect_fail \
	"cannot reach the Debian archive" "$TOP/scripts/fetch-base.sh"
# A wrong kernel path for the build
expect_fail "is not a kernel source tree" "$TOP/scripts/build.sh" "$T/nope" "$T/obj"

# liburing for the ublk selftests: an unreachable archive is a clear error,
# and the installed root is only replaced by one that works.
BB_LIBURING_DIR=$T/nouring BB_DEBIAN_MIRROR=http://127.0.0.1:9/debian expect_fail \
	"^block-batch: error: cannot install liburing" "$TOP/scripts/install-liburing.sh"
[ ! -e "$T/nouring/root" ] || fail "install-liburing.sh left a root after a failure"
expect_fail "usage: " "$TOP/scripts/install-liburing.sh" --bogus
# mkinitramfs.sh -u needs a configured build directory; test.sh --ublk a
# group that the ublk selftests do not have, before anything is fetched.
mkdir -p "$T/noobj"
expect_fail "-u $T/noobj: not a configured kernel build directory" \
	"$TOP/scripts/mkinitramfs.sh" -u "$T/noobj" "$T/linux" "$T/i.cpio.gz"
touch "$T/noobj/.config"
expect_fail "-K and -u: the ublk selftests are kselftests" \
	"$TOP/scripts/mkinitramfs.sh" -K -u "$T/noobj" "$T/linux" "$T/i.cpio.gz"
expect_fail "--ublk: 'nosuch' is no group \(or group_NN test\) of the ublk selftests" \
	"$TOP/scripts/test.sh" --ublk null,nosuch
expect_fail "--ublk: unknown mode 'xx'" "$TOP/scripts/run.sh" --ublk pc,xx
# test.sh checks its arguments before any work: a --kdir that is no kernel
# tree, a --tests name that is no ublk selftest
expect_fail "--kdir '$T' is not a kernel source tree" "$TOP/scripts/test.sh" --kdir "$T"
expect_fail "--tests: 'ublk:nosuch' is no ublk selftest name" \
	"$TOP/scripts/test.sh" --tests ublk:nosuch
# The machine's calibration: one line with the time and the factor.
"$TOP/scripts/calibrate.sh" > "$T/cal" || fail "calibrate.sh failed"
grep -Eq '^calibration [0-9]+\.[0-9]+ s, factor [0-9]+\.[0-9]+ \(reference [0-9.]+ s\)$' "$T/cal" ||
	{ cat "$T/cal"; fail "calibrate.sh printed no calibration line"; }
expect_fail "usage: " "$TOP/scripts/calibrate.sh" --bogus
