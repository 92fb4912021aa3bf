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

force=0
case "${1:-}" in
"") ;;
--force) force=1 ;;
-h|--help) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "usage: $0 [--force]" >&2; exit 2 ;;
esac

dir=${BB_HERD7_DIR:-$BB_CACHE/herd7}
mirror=${BB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
pkgs=(herdtools7 sparse libc6 libgmp10)
libdir=usr/lib/x86_64-linux-gnu

# works ROOT -- does the herd7 unpacked under ROOT run?
works() {
	[ -x "$1/usr/bin/herd7" ] && [ -x "$1/$libdir/ld-linux-x86-64.so.2" ] &&
	"$1/$libdir/ld-linux-x86-64.so.2" --library-path "$1/$libdir" \
		"$1/usr/bin/herd7" -version >/dev/null 2>&1 &&
	"$1/$libdir/ld-linux-x86-64.so.2" --library-path "$1/$libdir" \
		"$1/usr/bin/sparse" --version >/dev/null 2>&1
}

# Fast path: already installed.
if [ $force -eq 0 ] && works "$dir/root"; then
	echo "$dir"
	exit 0
fi

[ "$(uname -m)" = x86_64 ] ||
	die "cannot install herd7: only x86_64 hosts are supported (this is $(uname -m))"
need_tools apt-get dpkg-deb flock
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] ||
	die "cannot install herd7: /usr/share/keyrings/debian-archive-keyring.gpg is missing (apt-get install debian-archive-keyring)"

mkdir -p "$dir/sources" "$dir/lists/partial" "$dir/cache/archives/partial" \
	 "$dir/debs" || die "cannot install herd7: cannot create $dir"

# One installer at a time; a second one waits, then finds herd7 installed.
exec 9> "$dir/.lock" || die "cannot install herd7: cannot create $dir/.lock"
flock 9 || die "cannot install herd7: cannot lock $dir/.lock"
if [ $force -eq 0 ] && works "$dir/root"; then
	echo "$dir"
	exit 0
fi

bb_apt_setup "$dir" sid "$mirror" ||
	die "cannot install herd7: cannot set up apt in $dir"

info "installing herd7 from Debian sid into $dir"
if ! apt-get -q "${APT_OPTS[@]}" update > "$dir/update.log" 2>&1 ||
   grep -qE '^(E:|Err:)' "$dir/update.log"; then
	sed 's/^/  /' "$dir/update.log" >&2
	die "cannot install herd7: cannot update the apt lists for sid from $mirror"
fi

rm -f "$dir/debs"/*.deb
if ! (cd "$dir/debs" && apt-get -q "${APT_OPTS[@]}" download "${pkgs[@]}") \
	> "$dir/download.log" 2>&1; then
	sed 's/^/  /' "$dir/download.log" >&2
	die "cannot install herd7: download of ${pkgs[*]} from sid failed"
fi

tmp=$dir/root.new.$$
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp" || die "cannot install herd7: cannot create $tmp"
for p in "${pkgs[@]}"; do
	deb=$(ls "$dir/debs/${p}"_*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || die "cannot install herd7: apt-get download left no $p .deb"
	dpkg-deb -x "$deb" "$tmp" || die "cannot install herd7: dpkg-deb -x $deb failed"
done
[ -d "$tmp/usr/share/herdtools7/herd" ] ||
	die "cannot install herd7: herdtools7 has no usr/share/herdtools7/herd"
works "$tmp" || {
	"$tmp/$libdir/ld-linux-x86-64.so.2" --library-path "$tmp/$libdir" \
		"$tmp/usr/bin/herd7" -version 2>&1 | sed 's/^/  /' >&2
	die "cannot install herd7: the unpacked herd7 does not run"
}
rm -rf "$dir/root" && mv "$tmp" "$dir/root" ||
	die "cannot install herd7: cannot move $tmp to $dir/root"
trap - EXIT
rm -f "$dir/debs"/*.deb
info "herd7 $("$dir/root/$libdir/ld-linux-x86-64.so.2" --library-path \
	"$dir/root/$libdir" "$dir/root/usr/bin/herd7" -version 2>/dev/null |
	head -n1) installed in $dir"
echo "$dir"
