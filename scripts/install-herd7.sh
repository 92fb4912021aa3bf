#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install herd7 (the Linux-kernel memory model checker) and a current sparse
# (bookworm's 0.6.4 is too old for 7.x: the kernel's scripts/checker-valid.sh
# rejects it and C=1 silently does nothing) into a private directory, without
# root and without touching the system's apt setup.
#
# Debian sid's herdtools7 needs a newer glibc than the host may have, so sid's
# herdtools7, sparse, libc6 and libgmp10 are unpacked side by side under
# DIR/root and run through that glibc's own loader (see scripts/sid-tool).  apt runs
# with a private sources/lists/cache directory under DIR.
#
# Prints DIR on stdout.  Fast and quiet when herd7 is already installed.
#
# usage: install-herd7.sh [--force]
# Environment: BB_HERD7_DIR (default $BB_CACHE/herd7),
#              BB_DEBIAN_MIRROR (default http://deb.debian.org/debian)

set -u
. "$(dirname "$0")/lib.sh"

bb_sid_args "$0" "$@"

dir=${BB_HERD7_DIR:-$BB_CACHE/herd7}
pkgs=(herdtools7 sparse libc6 libgmp10)
libdir=usr/lib/x86_64-linux-gnu

# works ROOT -- does the herd7 unpacked under ROOT run?
works() {
	[ -x "$1/usr/bin/herd7" ] && [ -x "$1/$libdir/ld-linux-x86-64.so.2" ] &&
	[ -d "$1/usr/share/herdtools7/herd" ] &&
	"$1/$libdir/ld-linux-x86-64.so.2" --library-path "$1/$libdir" \
		"$1/usr/bin/herd7" -version >/dev/null 2>&1 &&
	"$1/$libdir/ld-linux-x86-64.so.2" --library-path "$1/$libdir" \
		"$1/usr/bin/sparse" --version >/dev/null 2>&1
}

# works_verbose ROOT -- works, and why not for a fresh install
works_verbose() {
	works "$1" && return 0
	[ "$1" != "$dir/root" ] || return 1
	"$1/$libdir/ld-linux-x86-64.so.2" --library-path "$1/$libdir" \
		"$1/usr/bin/herd7" -version 2>&1 | sed 's/^/  /' >&2
	return 1
}
bb_sid_install "$dir" herd7 works_verbose "${pkgs[@]}"
if [ "$BB_SID_INSTALLED" -eq 0 ]; then
	echo "$dir"
	exit 0
fi
info "herd7 $("$dir/root/$libdir/ld-linux-x86-64.so.2" --library-path \
	"$dir/root/$libdir" "$dir/root/usr/bin/herd7" -version 2>/dev/null |
	head -n1) installed in $dir"
echo "$dir"
