#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks of the series, patch by patch:
#   checkpatch  scripts/checkpatch.pl --strict on every exported patch
#               (exported into out/check-series, From: and Signed-off-by:
#               BB_CHECK_NAME <BB_CHECK_EMAIL>, default a check identity),
#               and every patch of the fixes posting has Fixes: and
#               Cc: stable@vger.kernel.org
#   build       check out each commit in turn and build the objects it touches
#               with W=1 and sparse (C=2); a warning that the same object does
#               not have on the base is an error, and so is a C file that
#               O_DIR's configuration does not build.  Selftest directories
#               a patch touches are built with their own Makefile.  A posting of
#               patches/topics that applies on the base alone is also
#               built that way, without the patches before it.
# usage: check-series.sh [checkpatch|build|all] [O_DIR]
#   O_DIR: a configured build directory of the cached tree (default: its
#          scripts/test.sh build directory, see bb_obj_dir)

set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/topics.sh"

usage() { bb_help "$0" usage; }
what=${1:-all}
case $what in
-h|--help) bb_help "$0"; exit 0 ;;
checkpatch|build|all) ;;
*) usage >&2; exit 2 ;;
esac
[ $# -le 2 ] || { usage >&2; exit 2; }
[ -z "${2:-}" ] || [ -f "$2/.config" ] ||
	die "O_DIR '$2' is no configured build directory (no .config)"
need_tools git perl make

rc=0
tree=$("$BB_TOP/scripts/fetch-base.sh") || exit 1
obj=${2:-$(bb_obj_dir "$tree" obj)}

# covered PATCH -- every file PATCH adds is maintained on linux-block
covered() {
	local f

	for f in $(sed -n 's|^+++ b/||p' "$1"); do
		grep -q "^--- /dev/null" <(grep -B3 "^+++ b/$f\$" "$1") || continue
		(cd "$tree" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
			--no-rolestats -f "$f" 2>/dev/null) |
			grep -q 'linux-block@vger.kernel.org' || return 1
	done
	return 0
}

check_patches() {
	local dir p out

	# checkpatch runs scripts/spdxcheck.py with "env python3": make that the
	# system python, which has python3-ply and python3-git.
	mkdir -p "$BB_CACHE/pybin"
	ln -sf /usr/bin/python3 "$BB_CACHE/pybin/python3"
	export PATH=$BB_CACHE/pybin:$PATH

	# Exported under a check identity of its own, into a directory of its
	# own: out/series is what you send, with your identity.
	dir=$(GIT_AUTHOR_NAME=${BB_CHECK_NAME:-Block Batch Check} \
		GIT_AUTHOR_EMAIL=${BB_CHECK_EMAIL:-check@block-batch.invalid} \
		"$BB_TOP/scripts/export-series.sh" -o "$BB_OUT/check-series") || return 1
	# A Debian source tarball has no history, so every "commit <sha>"
	# reference looks unknown; a real kernel git tree checks them.
	local ignore=
	[ "$(git -C "$tree" rev-list --count block-batch-base)" -gt 1 ] ||
		ignore="--ignore UNKNOWN_COMMIT_ID"
	for p in "$dir"/*/0*.patch; do
		case $p in *0000-cover-letter.patch) continue ;; esac
		out=$(cd "$tree" && perl scripts/checkpatch.pl --strict --terse \
			--no-summary --show-types $ignore "$p" 2>&1)
		# "does MAINTAINERS need updating?" is answered by the tree:
		# drop it when every file the patch adds already has an entry
		# that sends it to linux-block (the selftests patch adds ours).
		if grep -q 'FILE_PATH_CHANGES' <<<"$out" && covered "$p"; then
			out=$(grep -v 'FILE_PATH_CHANGES' <<<"$out")
		fi
		if [ -n "$out" ]; then
			echo "checkpatch: ${p#"$dir"/}:"
			echo "$out" | sed 's/^/  /'
			rc=1
		else
			echo "checkpatch: ${p#"$dir"/}: clean"
		fi
	done
	# The fixes posting holds only what stable takes: each of its
	# patches names the commit it fixes and is Cc'd to stable.
	for p in "$dir"/*-fixes/0*.patch; do
		case $p in *0000-cover-letter.patch) continue ;; esac
		[ -f "$p" ] || continue
		if grep -q '^Fixes: [0-9a-f]\{12,\} ("' "$p" &&
		   grep -q '^Cc: stable@vger.kernel.org' "$p"; then
			echo "stable: ${p#"$dir"/}: Fixes: and Cc: stable"
		else
			echo "stable: ${p#"$dir"/}: in the fixes posting without Fixes: or Cc: stable@vger.kernel.org"
			rc=1
		fi
	done
}

# warnings FILE.o -- W=1 and sparse warnings for one object, line numbers cut
warnings() {
	make -s -C "$tree" O="$obj" CC="$(bb_cc)" W=1 C=2 CHECK="$BB_TOP/scripts/sparse" "$1" 2>&1 |
		grep -E 'warning:|error:' | sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' | sort -u
}

# check_commit C LABEL -- check out C and build what it touches, with W=1
# and sparse; a warning the base has too is not counted.  A patch that
# changes only headers builds the objects of the series' C files that
# include them.
check_commit() {
	local c=$1 label=$2 f o h new base_w
	local -a objs=() ksflags

	git -C "$tree" checkout -q "$c" || return 1
	for f in $(git -C "$tree" diff --name-only --diff-filter=AM "$c~1" "$c"); do
		case $f in
		tools/testing/selftests/*/*)
			d=$(echo "$f" | cut -d/ -f1-4)
			case " ${objs[*]} " in *" $d/ "*) ;; *) objs+=("$d/") ;; esac ;;
		*.c)
			if [ -f "$obj/${f%.c}.o" ] || [ -f "$tree/${f%.c}.o" ]; then
				objs+=("${f%.c}.o")
			else
				echo "build: $label: $f: not built by $obj's configuration, so not checked"
				rc=1
			fi ;;
		esac
	done
	if [ ${#objs[@]} -eq 0 ]; then
		for h in $(git -C "$tree" diff --name-only "$c~1" "$c" -- '*.h'); do
			for f in $series_c; do
				[ -f "$obj/${f%.c}.o" ] || continue
				grep -q "#include [<\"]\(linux/\)\?$(basename "$h")[>\"]" "$tree/$f" 2>/dev/null || continue
				case " ${objs[*]} " in *" ${f%.c}.o "*) ;; *) objs+=("${f%.c}.o") ;; esac
			done
		done
	fi
	for o in "${objs[@]}"; do
		case $o in
		tools/*)
			ksflags=()
			if [ "$o" = tools/testing/selftests/ublk/ ]; then
				bb_ublk_selftest_flags "$tree" "$obj" ||
					{ echo "build: $label: $o: FAILED (see the warning above)"; rc=1; continue; }
				ksflags=("${BB_UBLK_MAKEFLAGS[@]}")
			fi
			if make -s -C "$tree/$o" O="$obj/kselftest-check" "${ksflags[@]}" >/dev/null 2>"$obj/ks.err"; then
				echo "build: $label: $o: ok"
			else
				echo "build: $label: $o: FAILED"; sed 's/^/  /' "$obj/ks.err"; rc=1
			fi
			continue ;;
		esac
		new=$(warnings "$o")
		if [ -z "$new" ]; then
			echo "build: $label: $o: ok"
			continue
		fi
		git -C "$tree" checkout -q block-batch-base
		base_w=$(warnings "$o")
		git -C "$tree" checkout -q "$c"
		new=$(comm -23 <(echo "$new") <(echo "$base_w"))
		if [ -n "$new" ]; then
			echo "build: $label: $o: new warnings:"
			echo "$new" | sed 's/^/  /'
			rc=1
		else
			echo "build: $label: $o: ok (only warnings the base has too)"
		fi
	done
	[ ${#objs[@]} -gt 0 ] || echo "build: $label: nothing to build"
}

build_patches() {
	local c n=0 t tips on tip k

	[ -f "$obj/.config" ] || { echo "build: no configured $obj; run scripts/test.sh first"; return 1; }
	# bookworm's sparse is too old for 7.x (C=2 would silently check nothing)
	"$BB_TOP/scripts/install-herd7.sh" >/dev/null ||
		{ echo "build: cannot install a current sparse"; return 1; }
	sh "$tree/scripts/checker-valid.sh" "$BB_TOP/scripts/sparse" -m64 | grep -qx 1 ||
		{ echo "build: $BB_TOP/scripts/sparse is not usable for this kernel"; return 1; }
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "$tree is dirty"
	git -C "$tree" rev-parse -q --verify block-batch >/dev/null ||
		"$BB_TOP/scripts/apply-series.sh" >/dev/null || return 1
	series_c=$(git -C "$tree" diff --name-only block-batch-base block-batch -- '*.c')
	for c in $(git -C "$tree" rev-list --reverse block-batch-base..block-batch); do
		n=$((n + 1))
		check_commit "$c" "patch $n"
	done
	# A posting that applies on the base alone and is not a prefix of the
	# series is built as it is sent: on the base, without what precedes it.
	git -C "$tree" checkout -q block-batch
	bb_topics_read
	for t in "${TOPICS[@]}"; do
		[ "${TOPIC_ON[$t]}" = - ] && [ "${TOPIC_FIRST[$t]}" -gt 1 ] || continue
		# check_commit leaves the tree at the last commit it built:
		# name the series' tip, not HEAD.
		tips=$(bb_topic_build "$tree" block-batch-base "$t" block-batch) ||
			{ echo "build: posting $t alone on the base: cannot build its commits"; rc=1; continue; }
		read -r on tip <<<"$tips"
		k=0
		for c in $(git -C "$tree" rev-list --reverse "$on..$tip"); do
			k=$((k + 1))
			check_commit "$c" "posting $t alone on the base, patch $k"
		done
	done
	git -C "$tree" checkout -q block-batch
	make -s -C "$tree" O="$obj" CC="$(bb_cc)" -j"$(nproc)" bzImage >/dev/null 2>&1 ||
		{ echo "build: the whole series does not build"; rc=1; }
}

case $what in
checkpatch) check_patches ;;
build) build_patches ;;
all) check_patches; build_patches ;;
*) usage >&2; exit 2 ;;
esac
exit $rc
