#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install a liburing new enough for the kernel's ublk selftests (kublk needs
# 2.4 or later: io_uring_setup_buf_ring() and friends; Debian 12 has 2.3)
# into a private directory, without root and without touching the system's
# liburing.  Debian sid's liburing-dev and liburing2 are unpacked under
# DIR/root (scripts/lib.sh: bb_sid_install); kublk links liburing.a from
# there statically, so the test guest needs no liburing of its own.
#
# Prints DIR on stdout.  Fast and quiet when it is already installed.
#
# usage: install-liburing.sh [--force]
# Environment: BB_LIBURING_DIR (default $BB_CACHE/liburing),
#              BB_DEBIAN_MIRROR (default http://deb.debian.org/debian)

set -u
. "$(dirname "$0")/lib.sh"

bb_sid_args "$0" "$@"

dir=${BB_LIBURING_DIR:-$BB_CACHE/liburing}
libdir=usr/lib/x86_64-linux-gnu

# works ROOT -- does ROOT hold a liburing.a and headers of 2.4 or later?
works() {
	local v

	[ -r "$1/$libdir/liburing.a" ] && [ -r "$1/usr/include/liburing.h" ] &&
	grep -q 'io_uring_setup_buf_ring' "$1/usr/include/liburing.h" || return 1
	v=$(liburing_version "$1") || return 1
	[ "${v%%.*}" -gt 2 ] || { [ "${v%%.*}" -eq 2 ] && [ "${v#*.}" -ge 4 ]; }
}

# liburing_version ROOT -- MAJOR.MINOR from liburing/io_uring_version.h
liburing_version() {
	local h=$1/usr/include/liburing/io_uring_version.h maj min

	maj=$(sed -n 's/^#define IO_URING_VERSION_MAJOR \([0-9]*\).*/\1/p' "$h" 2>/dev/null)
	min=$(sed -n 's/^#define IO_URING_VERSION_MINOR \([0-9]*\).*/\1/p' "$h" 2>/dev/null)
	[ -n "$maj" ] && [ -n "$min" ] && echo "$maj.$min"
}

bb_sid_install "$dir" liburing works liburing-dev liburing2
[ "$BB_SID_INSTALLED" -eq 0 ] ||
	info "liburing $(liburing_version "$dir/root") installed in $dir"
echo "$dir"
