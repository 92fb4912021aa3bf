# SPDX-License-Identifier: GPL-2.0
# Common helpers for the block-batch tooling.  Sourced, never executed.

BB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BB_CACHE=${BB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/block-batch}
BB_OUT=${BB_OUT:-$BB_TOP/out}
BB_LOCK=$BB_TOP/base.lock

# The stderr a script started with: stage()'s minute lines go there even
# when the stage's own output goes to a log.
exec {BB_TTY}>&2
die()  { echo "block-batch: error: $*" >&2; exit 1; }
warn() { echo "block-batch: WARNING: $*" >&2; }
info() { echo "block-batch: $*" >&2; }

# need_tools TOOL... -- fail with one clear line naming every missing tool.
need_tools() {
	local t missing=()

	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || missing+=("$t")
	done
	[ ${#missing[@]} -eq 0 ] ||
		die "missing tool(s): ${missing[*]} (on Debian: see 'scripts/install-deps.sh')"
}

# bb_help SCRIPT [usage] -- SCRIPT's help: the comment block at its top
# (after the #! and SPDX lines), or with "usage" only its block from the
# "# usage:" line to the next empty comment line
bb_help() {
	awk -v from="${2:-}" '
		NR <= 2 { next }
		!/^#/ { exit }
		{ sub(/^# ?/, "") }
		from == "" && (n++ || $0 != "") { print; next }
		/^usage:/ { on = 1 }
		on && $0 == "" { exit }
		on { print }' "$1"
}

# bb_maintainers_entry TREE BASE TIP -- what BASE..TIP of TREE change in
# MAINTAINERS (the series' entry, and its litmus tests in the block
# layer's), as a diff without blob ids: MAINTAINERS.fragment
bb_maintainers_entry() {
	local d

	d=$(git -C "$1" diff "$2" "$3" -- MAINTAINERS) || return 1
	sed '/^index /d' <<< "$d"
}

# lock_get KEY -- value of KEY=... in base.lock
lock_get() {
	sed -n "s/^$1=//p" "$BB_LOCK"
}

# stage NAME CMD... -- run a stage and record its wall time.  While it runs,
# a line every BB_TICK_SECS (60) says how long it has taken so far, and what
# stage_progress NAME prints, if the caller defines that function (objects
# built, tests done), so that a long stage is never silent.
stage() {
	local name=$1 t0 rc tick
	shift
	t0=$(date +%s)
	(
		trap 'kill "$s" 2>/dev/null; exit 0' TERM
		while :; do
			sleep "${BB_TICK_SECS:-60}" &
			s=$!
			wait "$s"
			p=
			declare -F stage_progress >/dev/null && p=$(stage_progress "$name")
			info "stage '$name': $(( $(date +%s) - t0 ))s so far${p:+: $p}" \
				2>&"$BB_TTY"
		done
	) >/dev/null &
	tick=$!
	"$@"
	rc=$?
	kill "$tick" 2>/dev/null
	wait "$tick" 2>/dev/null
	echo "$name $(( $(date +%s) - t0 ))s rc=$rc" >> "$BB_OUT/stages.txt"
	info "stage '$name' took $(( $(date +%s) - t0 ))s (rc=$rc)"
	return $rc
}

# bb_series_count [DIR] -- the number of patches that DIR/series lists
# (default BB_PATCHES, else patches/): its lines that are neither blank
# nor comments
bb_series_count() {
	grep -v '^#' "${1:-${BB_PATCHES:-$BB_TOP/patches}}/series" | grep -c .
}

# bb_meta_begin DIR CMD... -- start DIR/meta.txt, the provenance of a record:
# date, project commit, exact command (and BB_PATCHES when set), host, load,
# QEMU, and the machine factor of scripts/calibrate.sh, which it runs and
# leaves in BB_CALIBRATION (empty if it failed).
# bb_meta KEY VALUE adds a line; bb_meta_end adds the duration.
bb_meta_begin() {
	local dir=$1 rev dirty= qemu
	shift
	mkdir -p "$dir" || return 1
	BB_CALIBRATION=$("$BB_TOP/scripts/calibrate.sh") || BB_CALIBRATION=
	qemu=$(qemu-system-x86_64 --version 2>/dev/null | head -n1)
	BB_META=$dir/meta.txt BB_META_T0=$(date +%s)
	rev=$(git -C "$BB_TOP" rev-parse HEAD 2>/dev/null || echo unknown)
	[ -z "$(git -C "$BB_TOP" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
		dirty=" (with uncommitted changes)"
	{
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "project commit: $rev$dirty"
		echo "command: $(cd "$BB_TOP" && printf '%q ' "$@")"
		# another series than patches/ makes another "series" kernel
		[ -z "${BB_PATCHES:-}" ] ||
			echo "patches: BB_PATCHES=$BB_PATCHES ($(bb_series_count 2>/dev/null) patches)"
		echo "host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1), $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -r)"
		echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "qemu: ${qemu:-none}, accelerator tcg"
		[ -z "${BB_CALIBRATION:-}" ] || echo "machine: $BB_CALIBRATION"
	} > "$BB_META"
}
bb_meta() {
	[ -n "${BB_META:-}" ] && echo "$1: $2" >> "$BB_META"
}
bb_meta_end() {
	bb_meta "load at end" "$(cut -d' ' -f1-3 /proc/loadavg)"
	bb_meta duration "$(( $(date +%s) - ${BB_META_T0:-0} ))s"
}

# The compiler for kernel builds: the same string everywhere, or Kbuild sees a
# changed command line and rebuilds everything.
bb_cc() {
	if command -v ccache >/dev/null 2>&1; then
		echo "ccache gcc"
	else
		echo gcc
	fi
}
export CCACHE_DIR=${CCACHE_DIR:-$BB_CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
export CCACHE_NOHASHDIR=1
# Reproducible builds: same inputs, same objects, more cache hits.
export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 1970"
export KBUILD_BUILD_USER=block-batch KBUILD_BUILD_HOST=block-batch

# bb_obj_dir TREE NAME -- the build directory NAME for kernel tree TREE:
# next to the tree, so that it sits at the same relative path from the tree
# (../linux) for the cached base and the base worktree below, whichever
# checkout of block-batch runs the build.  ccache (CCACHE_BASEDIR) then hits
# across the two kernels and across runs.
bb_obj_dir() {
	local t

	t=$(realpath -m "$1")
	echo "$(dirname "$t")/$(basename "$t")-$2"
}

# bb_cache_worktree TREE DIR REF WHAT -- DIR as a detached worktree of
# TREE's repository (at REF when it is made), made again when DIR is
# something else; WHAT names it in the messages.  Dies on failure.
bb_cache_worktree() {
	local tree=$1 dir=$2 ref=$3 what=$4

	if [ -e "$dir" ] && { [ ! -e "$dir/.git" ] ||
		[ "$(git -C "$dir" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" != \
		  "$(git -C "$tree" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" ]; }; then
		warn "$dir is not a worktree of $tree: making it again"
		rm -rf "$dir"
	fi
	[ -e "$dir" ] && return 0
	git -C "$tree" worktree prune
	info "adding the $what worktree $dir"
	git -C "$tree" worktree add -q --detach "$dir" "$ref" ||
		die "cannot add a worktree $dir of $tree"
}

# bb_base_worktree TREE -- the commit that the series was applied to in TREE
# (its HEAD less as many commits as the series has patches), checked out
# detached in a worktree of its own under the cache (made once); prints the
# worktree's path.  The count comes from the series file, not from a
# block-batch-base ref: a tree cloned from the cached one has that ref at
# the cached base, whatever its own base is.
bb_base_worktree() {
	local tree=$1 nr base

	nr=$(bb_series_count) || return 1
	base=$BB_CACHE/base-trees/$(git -C "$tree" rev-parse --short "HEAD~$nr")/linux ||
		return 1
	mkdir -p "$(dirname "$base")" || return 1
	if [ ! -d "$base" ]; then
		git -C "$tree" worktree add -q --detach "$base" "HEAD~$nr" ||
			{ warn "cannot add a worktree for the base of $tree"; return 1; }
	fi
	echo "$base"
}

# bb_apt_setup DIR SUITES [MIRROR] -- a private apt configuration in DIR
# (sources, lists, cache) for Debian SUITES; sets APT_OPTS for apt-get and
# apt-cache.  The system's apt configuration is never read or written.
bb_apt_setup() {
	local dir=$1 suites=$2 mirror=${3:-${BB_DEBIAN_MIRROR:-http://deb.debian.org/debian}}

	mkdir -p "$dir/sources" "$dir/lists/partial" "$dir/cache/archives/partial" ||
		return 1
	rm -f "$dir/sources"/*.sources
	cat > "$dir/sources/block-batch.sources" <<EOT || return 1
Types: deb
URIs: $mirror
Suites: $suites
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	APT_OPTS=(-o Dir::Etc::SourceList=/dev/null
		  -o "Dir::Etc::SourceParts=$dir/sources"
		  -o "Dir::State::Lists=$dir/lists"
		  -o "Dir::Cache=$dir/cache"
		  -o Dir::State::status=/dev/null
		  -o Acquire::Retries=1
		  -o Acquire::http::Timeout=20
		  -o APT::Sandbox::User=root)
}

# bb_sid_args SCRIPT ARG... -- the command line of an installer that calls
# bb_sid_install: nothing, --force (sets BB_FORCE=1: install again) or
# --help; anything else is a usage error
bb_sid_args() {
	BB_FORCE=0
	case "${2:-}" in
	"") ;;
	--force) BB_FORCE=1 ;;
	-h|--help) bb_help "$1"; exit 0 ;;
	*) echo "usage: $1 [--force]" >&2; exit 2 ;;
	esac
	[ $# -le 2 ] || { echo "usage: $1 [--force]" >&2; exit 2; }
}

# bb_sid_install DIR WHAT WORKS PKG... -- unpack Debian sid's PKGs into
# DIR/root through a private apt setup (bb_apt_setup), without root and
# without touching the system's apt configuration or dpkg database.  WORKS
# is a command that, given a root, says whether what is unpacked there works;
# nothing is downloaded when DIR/root already works, and DIR/root is only
# replaced by a root that works.  WHAT names the install in messages.  One
# installer per DIR at a time (flock); the second one then finds it done.
# BB_FORCE=1 reinstalls; BB_DEBIAN_MIRROR picks the mirror.  Sets
# BB_SID_INSTALLED to 1 when it installed, 0 when DIR/root already worked.
bb_sid_install() {
	local dir=$1 what=$2 works=$3 tmp p deb
	shift 3
	local pkgs=("$@")
	local mirror=${BB_DEBIAN_MIRROR:-http://deb.debian.org/debian}

	BB_SID_INSTALLED=0
	[ "${BB_FORCE:-0}" = 1 ] || ! "$works" "$dir/root" || return 0
	[ "$(uname -m)" = x86_64 ] ||
		die "cannot install $what: only x86_64 hosts are supported (this is $(uname -m))"
	need_tools apt-get dpkg-deb flock
	[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] ||
		die "cannot install $what: /usr/share/keyrings/debian-archive-keyring.gpg is missing (apt-get install debian-archive-keyring)"
	mkdir -p "$dir/debs" || die "cannot install $what: cannot create $dir"
	exec 9> "$dir/.lock" || die "cannot install $what: cannot create $dir/.lock"
	flock 9 || die "cannot install $what: cannot lock $dir/.lock"
	if [ "${BB_FORCE:-0}" != 1 ] && "$works" "$dir/root"; then
		exec 9>&-
		return 0
	fi
	bb_apt_setup "$dir" sid "$mirror" ||
		die "cannot install $what: cannot set up apt in $dir"
	info "installing $what from Debian sid into $dir"
	if ! apt-get -q "${APT_OPTS[@]}" update > "$dir/update.log" 2>&1 ||
	   grep -qE '^(E:|Err:)' "$dir/update.log"; then
		sed 's/^/  /' "$dir/update.log" >&2
		die "cannot install $what: cannot update the apt lists for sid from $mirror"
	fi
	rm -f "$dir/debs"/*.deb
	if ! (cd "$dir/debs" && apt-get -q "${APT_OPTS[@]}" download "${pkgs[@]}") \
		> "$dir/download.log" 2>&1; then
		sed 's/^/  /' "$dir/download.log" >&2
		die "cannot install $what: download of ${pkgs[*]} from sid failed"
	fi
	tmp=$dir/root.new.$$
	rm -rf "$tmp"
	mkdir -p "$tmp" || die "cannot install $what: cannot create $tmp"
	for p in "${pkgs[@]}"; do
		deb=$(ls "$dir/debs/${p}"_*.deb 2>/dev/null | head -n1)
		[ -n "$deb" ] || { rm -rf "$tmp"; die "cannot install $what: apt-get download left no $p .deb"; }
		dpkg-deb -x "$deb" "$tmp" ||
			{ rm -rf "$tmp"; die "cannot install $what: dpkg-deb -x $deb failed"; }
	done
	if ! "$works" "$tmp"; then
		rm -rf "$tmp"
		die "cannot install $what: what was unpacked from sid does not work"
	fi
	rm -rf "$dir/root" && mv "$tmp" "$dir/root" ||
		die "cannot install $what: cannot move $tmp to $dir/root"
	rm -f "$dir/debs"/*.deb
	exec 9>&-
	BB_SID_INSTALLED=1
}

# bb_ublk_selftest_flags TREE OBJ -- set BB_UBLK_MAKEFLAGS, the make
# variables that build TREE's tools/testing/selftests/ublk: TREE's uapi
# headers (made in OBJ) first, then those of a liburing of 2.4 or later
# (scripts/install-liburing.sh), both before the system's /usr/include
# with Debian 12's liburing 2.3; liburing.a linked statically, so that a
# test guest needs no liburing of its own.  Returns 1 when either is
# missing, with a message.
bb_ublk_selftest_flags() {
	local uring

	uring=$("$BB_TOP/scripts/install-liburing.sh") ||
		{ warn "no liburing of 2.4 or later for the ublk selftests"; return 1; }
	uring=$uring/root
	make -s -C "$1" O="$2" ARCH=x86_64 headers >/dev/null ||
		{ warn "'make headers' in $2 failed"; return 1; }
	BB_UBLK_MAKEFLAGS=(USERCFLAGS="-isystem $(realpath "$2")/usr/include -isystem $uring/usr/include"
			   LDLIBS="-lpthread -lm $uring/usr/lib/x86_64-linux-gnu/liburing.a")
}
