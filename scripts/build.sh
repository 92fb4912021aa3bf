#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a test kernel out of tree: tinyconfig plus configs/boot.config,
# configs/debug.config, the selftests' config fragment, configs/ublk.config
# (for the kernel's own ublk selftests) and any extra fragments given with -f.  Uses ccache when it is installed.
#
# usage: build.sh [-n] [-m] [-f FRAGMENT]... KTREE O_DIR
#   -n  leave out configs/debug.config (lockdep): for benchmarks
#   -m  add configs/modules.config (schedulers and null_blk as modules) and
#       install the modules under O_DIR/modroot (for mkinitramfs.sh -m)

set -u
. "$(dirname "$0")/lib.sh"

debug=$BB_TOP/configs/debug.config
modules=
frags=()
while getopts "nmf:" opt; do
	case $opt in
	n) debug= ;;
	m) modules=$BB_TOP/configs/modules.config ;;
	f) frags+=("$(realpath "$OPTARG")") ;;
	*) echo "usage: $0 [-n] [-m] [-f FRAGMENT]... KTREE O_DIR" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
frags=("$BB_TOP/configs/boot.config" ${debug:+"$debug"}
       "$BB_TOP/tools/testing/selftests/block-batch/config"
       "$BB_TOP/configs/ublk.config" ${modules:+"$modules"}
       "${frags[@]}")
[ $# -eq 2 ] || { echo "usage: $0 [-n] [-m] [-f FRAGMENT]... KTREE O_DIR" >&2; exit 2; }
ktree=$1
obj=$2

[ -f "$ktree/Makefile" ] && [ -d "$ktree/block" ] ||
	die "'$ktree' is not a kernel source tree"
[ -e "$ktree/.config" ] || [ -d "$ktree/include/config" ] &&
	die "'$ktree' holds an in-tree build; 'make mrproper' it first (we only build with O=)"
need_tools make gcc flex bison bc perl
for f in "${frags[@]}"; do
	[ -r "$f" ] || die "config fragment $f not found"
done

cc=$(bb_cc)
# Identical sources at different paths must hit the same cache entries.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(realpath "$ktree")}
jobs=${BB_JOBS:-$(nproc)}

mkdir -p "$obj" || die "cannot create $obj"
obj=$(realpath "$obj")
newcfg=$obj/.config.block-batch
{
	make -s -C "$ktree" O="$obj" ARCH=x86_64 tinyconfig >/dev/null &&
	"$ktree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"${frags[@]}" >"$obj/merge_config.log" &&
	make -s -C "$ktree" O="$obj" ARCH=x86_64 olddefconfig >/dev/null
} || die "kernel configuration failed (see $obj/merge_config.log)"

# Every option a fragment sets must have made it into the final .config,
# unless the tree does not define it; where fragments disagree, the last
# one wins (as in merge_config.sh).
missing=0
declare -A want=()
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) want[${line%%=*}]=$line ;;
	esac
done < <(cat "${frags[@]}")
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n)
		# "=n" shows up as "# CONFIG_X is not set", or not at all
		grep -q "^${line%=n}=" "$obj/.config" || continue
		warn "config: '$line' requested but set"
		missing=1
		continue ;;
	CONFIG_*=*) ;;
	*) continue ;;
	esac
	grep -qxF "$line" "$obj/.config" && continue
	# an option of the series (its KUnit test) on a tree without it: the
	# base kernel is built from the same fragments
	sym=${line%%=*}
	if ! grep -rqsE --include='Kconfig*' "^(menu)?config ${sym#CONFIG_}\$" "$ktree"; then
		info "config: '$line' left out: no such option in $ktree"
		continue
	fi
	warn "config: '$line' requested but not set (dependency missing?)"
	missing=1
done < <(printf '%s\n' "${want[@]}")
[ $missing -eq 0 ] || die "config fragments not satisfied; fix configs/"

info "building $(make -s -C "$ktree" O="$obj" kernelversion) in $obj with '$cc' -j$jobs"
make -s -C "$ktree" O="$obj" ARCH=x86_64 CC="$cc" -j"$jobs" bzImage \
	> "$obj/build.log" 2>&1 ||
	{ tail -n 40 "$obj/build.log" >&2; die "kernel build failed (full log: $obj/build.log)"; }
if [ -n "$modules" ]; then
	rm -rf "$obj/modroot"
	make -s -C "$ktree" O="$obj" ARCH=x86_64 CC="$cc" -j"$jobs" modules \
		>> "$obj/build.log" 2>&1 &&
	make -s -C "$ktree" O="$obj" ARCH=x86_64 INSTALL_MOD_PATH="$obj/modroot" \
		INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod modules_install >> "$obj/build.log" 2>&1 ||
		{ tail -n 40 "$obj/build.log" >&2; die "module build failed (full log: $obj/build.log)"; }
fi
# Warnings are not fatal here (scripts/check-series.sh is strict), but show them.
grep -E 'warning:' "$obj/build.log" | head -n 20 >&2
cp "$obj/.config" "$newcfg"
echo "$obj/arch/x86/boot/bzImage"
