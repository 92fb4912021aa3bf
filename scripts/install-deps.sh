#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what block-batch needs on Debian 12 (as root), or, when not root,
# name what is missing.  Runs quickly when everything is already there.
# usage: install-deps.sh [--bench | --blktests]
#   --bench     also what scripts/run.sh can use beyond the tests: gnuplot-nox
#               for the plots (optional: without root it is only named)
#   --blktests  also what scripts/blktests-upstream.sh needs: g++ for
#               blktests' programs, and the tools its cases run that the
#               guest takes from this host (scripts/mkinitramfs.sh), and
#               shellcheck for blktests' make check (export-series.sh
#               --blktests)

set -u
. "$(dirname "$0")/lib.sh"

PKGS=(qemu-system-x86 busybox-static fio liburing-dev sparse ccache flex bison
      bc libelf-dev libssl-dev cpio kmod xz-utils gcc make perl git file
      coreutils util-linux python3-ply python3-git rsync dmsetup git-email
      libmailtools-perl b4 strace)
OPTIONAL=()
case ${1:-} in
"") ;;
--bench) OPTIONAL=(gnuplot-nox) ;;
--blktests)
	PKGS+=(g++ gawk findutils grep bsdextrautils libc-bin nvme-cli
	       uuid-runtime fdisk parted xfsprogs e2fsprogs dosfstools blktrace
	       shellcheck) ;;
*) die "usage: $0 [--bench | --blktests]" ;;
esac
# Optional packages (the plots): installed as root, else only named.
for p in "${OPTIONAL[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' && continue
	if [ "$(id -u)" -eq 0 ]; then
		PKGS+=("$p")
	else
		warn "$p is not installed: no plots (sudo apt-get install $p)"
	fi
done
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	die "missing packages: ${missing[*]}; run: sudo apt-get install --no-install-recommends ${missing[*]}"
fi
info "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
	>"${TMPDIR:-/tmp}/block-batch-apt.log" 2>&1 ||
	{ tail -n 20 "${TMPDIR:-/tmp}/block-batch-apt.log" >&2; die "apt-get install failed"; }
