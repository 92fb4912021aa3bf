#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the pinned base kernel (Debian's linux-source-7.3 .deb), check its
# sha256 against base.lock, unpack it into the cache and make it a git
# repository with one commit tagged 'block-batch-base'.  Prints the path of
# that repository on stdout.
#
# The system's apt configuration is never touched: apt runs with a private
# sources/lists/cache directory under $BB_CACHE/apt.
#
# If the pinned .deb is no longer served, the newest linux-source-7.3 is used
# instead, with a loud warning; base.lock changes only with --update-lock.

set -u
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOT
usage: $0 [--update-lock]
  Fetch and unpack the base kernel into \$BB_CACHE ($BB_CACHE).
  --update-lock   record the version actually used in base.lock
Environment: BB_CACHE, BB_DEBIAN_MIRROR (default http://deb.debian.org/debian)
EOT
}

update_lock=0
case "${1:-}" in
"") ;;
--update-lock) update_lock=1 ;;
-h|--help) usage; exit 0 ;;
*) usage >&2; exit 2 ;;
esac

[ -r "$BB_LOCK" ] || die "cannot read $BB_LOCK"
pkg=$(lock_get BASE_PACKAGE)
pinned=$(lock_get BASE_VERSION)
pinned_sha=$(lock_get BASE_SHA256)
suites=$(lock_get BASE_SUITES)
tarball=$(lock_get BASE_TARBALL)
mirror=${BB_DEBIAN_MIRROR:-http://deb.debian.org/debian}

tree_for() { echo "$BB_CACHE/base/${1//[~:]/_}/linux"; }

# Fast path: the pinned tree is already unpacked.
tree=$(tree_for "$pinned")
if [ $update_lock -eq 0 ] &&
   git -C "$tree" rev-parse -q --verify block-batch-base >/dev/null 2>&1; then
	echo "$tree"
	exit 0
fi

need_tools apt-get apt-cache dpkg-deb dpkg sha256sum tar xz git

apt_dir=$BB_CACHE/apt
deb_dir=$BB_CACHE/debs
mkdir -p "$deb_dir" && bb_apt_setup "$apt_dir" "$suites" "$mirror" ||
	die "cannot create $BB_CACHE"

deb_file() { echo "$deb_dir/${pkg}_${1/:/%3a}_all.deb"; }

sha_ok() { [ -f "$1" ] && echo "$2  $1" | sha256sum -c --status; }

version=$pinned
deb=$(deb_file "$pinned")
if [ $update_lock -eq 1 ] || ! sha_ok "$deb" "$pinned_sha"; then
	info "updating the private apt lists from $mirror ($suites)"
	if ! apt-get -q "${APT_OPTS[@]}" update >"$apt_dir/update.log" 2>&1 ||
	   grep -qE '^(E:|Err:)' "$apt_dir/update.log"; then
		sed 's/^/  /' "$apt_dir/update.log" >&2
		die "cannot reach the Debian archive at $mirror to fetch $pkg (base not cached in $BB_CACHE)"
	fi
	versions=$(apt-cache "${APT_OPTS[@]}" madison "$pkg" 2>/dev/null |
		   awk -F'|' '{gsub(/ /, "", $2); print $2}' | sort -u)
	[ -n "$versions" ] || die "$pkg is not in $suites at $mirror"
	newest=
	for v in $versions; do
		if [ -z "$newest" ] || dpkg --compare-versions "$v" gt "$newest"; then
			newest=$v
		fi
	done
	if [ $update_lock -eq 1 ]; then
		version=$newest
	elif ! grep -qxF "$pinned" <<<"$versions"; then
		warn "**************************************************************"
		warn "pinned $pkg $pinned is no longer served by $mirror."
		warn "USING THE NEWEST ONE INSTEAD: $pkg $newest"
		warn "Results are NOT comparable with the pinned base.  Run"
		warn "'scripts/fetch-base.sh --update-lock' to move the pin."
		warn "**************************************************************"
		version=$newest
	fi
	deb=$(deb_file "$version")
	if ! { [ "$version" = "$pinned" ] && sha_ok "$deb" "$pinned_sha"; }; then
		info "downloading $pkg $version"
		rm -f "$deb"
		(cd "$deb_dir" && apt-get -q "${APT_OPTS[@]}" download "$pkg=$version") \
			>"$apt_dir/download.log" 2>&1 ||
			{ cat "$apt_dir/download.log" >&2; die "download of $pkg $version failed"; }
		[ -f "$deb" ] || die "download of $pkg $version left no $deb"
	fi
	if [ "$version" = "$pinned" ]; then
		sha_ok "$deb" "$pinned_sha" ||
			die "sha256 of $deb does not match base.lock ($pinned_sha)"
	fi
fi
sha=$(sha256sum "$deb" | cut -d' ' -f1)
info "base: $pkg $version sha256 $sha"

tree=$(tree_for "$version")
if ! git -C "$tree" rev-parse -q --verify block-batch-base >/dev/null 2>&1; then
	tmp=$BB_CACHE/base/.unpack.$$
	rm -rf "$tmp"
	mkdir -p "$tmp/deb" || die "cannot create $tmp"
	trap 'rm -rf "$tmp"' EXIT
	info "unpacking $deb"
	dpkg-deb -x "$deb" "$tmp/deb" || die "dpkg-deb -x $deb failed"
	[ -f "$tmp/deb/$tarball" ] || die "$deb has no $tarball"
	mkdir -p "$tmp/src"
	tar -C "$tmp/src" -xJf "$tmp/deb/$tarball" || die "cannot untar $tarball"
	src=$(find "$tmp/src" -mindepth 1 -maxdepth 1 -type d | head -n1)
	[ -f "$src/Makefile" ] || die "$tarball holds no kernel tree"
	info "making $src a git repository (takes a minute)"
	(
		cd "$src" &&
		git init -q -b block-batch-base-branch &&
		git config user.name "block-batch" &&
		git config user.email "block-batch@localhost" &&
		git config core.autocrlf false &&
		git config gc.auto 0 &&
		git add -A -f &&
		git commit -q -m "base: $pkg $version" \
			-m "sha256 of the .deb: $sha" &&
		git tag block-batch-base
	) || die "git init of the base tree failed"
	mkdir -p "$(dirname "$tree")"
	rm -rf "$tree"
	mv "$src" "$tree" || die "cannot move the base tree into $tree"
	rm -rf "$tmp"
	trap - EXIT
fi

if [ $update_lock -eq 1 ]; then
	sed -i -e "s/^BASE_VERSION=.*/BASE_VERSION=$version/" \
	       -e "s/^BASE_SHA256=.*/BASE_SHA256=$sha/" "$BB_LOCK"
	info "base.lock now pins $pkg $version"
fi
echo "$tree"
