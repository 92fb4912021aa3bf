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
mk_fake_series "$T/patches" "$T/overlay"
PATH=$T/bin BB_PATCHES=$T/patches BB_OVERLAY=$T/overlay expect_fail \
	"missing tool\(s\): git" "$TOP/scripts/apply-series.sh" --kdir "$T/linux"
touch "$T/bzImage" "$T/initrd"
PATH=$T/bin expect_fail "missing tool\(s\): qemu-system-x86_64" \
	"$TOP/scripts/boot.sh" "$T/bzImage" "$T/initrd" "$T/log"

# Unreachable archive, nothing cached: port 9 (discard) on loopback.
BB_DEBIAN_MIRROR=http://127.0.0.1:9/debian expect_fail \
	"cannot reach the Debian archive" "$TOP/scripts/fetch-base.sh"
# A wrong kernel path for the build
expect_fail "is not a kernel source tree" "$TOP/scripts/build.sh" "$T/nope" "$T/obj"
