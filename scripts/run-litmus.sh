#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check the block-batch litmus tests with the Linux-kernel memory model:
# run each .litmus file through herd7 (from a kernel tree's
# tools/memory-model, with -conf linux-kernel.cfg) and compare herd7's
# verdict with the file's "Result:" comment, the way the kernel's
# tools/memory-model/scripts/judgelitmus.sh does.  Prints TAP.
#
# usage: run-litmus.sh [--mm-dir DIR] [FILE.litmus|DIR]...
#   FILE|DIR     litmus tests to check; a directory means its *.litmus
#                (default: Documentation/litmus-tests/block)
#   --mm-dir DIR the memory model to use (default: tools/memory-model of the
#                base tree from scripts/fetch-base.sh)
# Environment: BB_LKMM_DIR (same as --mm-dir), BB_LITMUS_TIMEOUT (seconds
# per test, default 600), BB_HERD7_DIR (see scripts/install-herd7.sh)
# Exit status: 0 all as expected, 1 a mismatch or error, 4 herd7 or the
# memory model is unavailable (skip), 2 usage.

set -u
. "$(dirname "$0")/lib.sh"

usage() { bb_help "$0" usage; }

skip() { echo "block-batch: SKIP: $*" >&2; echo "1..0 # SKIP $*"; exit 4; }

mm=${BB_LKMM_DIR:-}
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--mm-dir) mm=${2:?--mm-dir needs a directory}; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) usage >&2; exit 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
[ ${#args[@]} -gt 0 ] || args=("$BB_TOP/Documentation/litmus-tests/block")

files=()
for a in "${args[@]}"; do
	if [ -d "$a" ]; then
		for f in "$a"/*.litmus; do
			[ -f "$f" ] && files+=("$(realpath "$f")")
		done
	elif [ -f "$a" ]; then
		files+=("$(realpath "$a")")
	else
		die "no such litmus file or directory: $a"
	fi
done
[ ${#files[@]} -gt 0 ] || die "no .litmus files in: ${args[*]}"

"$BB_TOP/scripts/install-herd7.sh" >/dev/null ||
	skip "herd7 is unavailable (scripts/install-herd7.sh failed)"
if [ -z "$mm" ]; then
	tree=$("$BB_TOP/scripts/fetch-base.sh") ||
		skip "the Linux-kernel memory model is unavailable (scripts/fetch-base.sh failed)"
	mm=$tree/tools/memory-model
fi
[ -f "$mm/linux-kernel.cfg" ] ||
	skip "no Linux-kernel memory model in $mm (linux-kernel.cfg missing)"
need_tools timeout

out=$(mktemp "${TMPDIR:-/tmp}/bb-litmus.XXXXXX") || die "mktemp failed"
trap 'rm -f "$out"' EXIT

# show FILE -- FILE relative to the top of block-batch when inside it
show() {
	case $1 in
	"$BB_TOP"/*) echo "${1#"$BB_TOP"/}" ;;
	*) echo "$1" ;;
	esac
}

echo "TAP version 13"
echo "1..${#files[@]}"
n=0 bad=0
for f in "${files[@]}"; do
	n=$((n + 1))
	name=$(show "$f")
	(cd "$mm" && timeout "${BB_LITMUS_TIMEOUT:-600}" \
		"$BB_TOP/scripts/herd7" -conf linux-kernel.cfg "$f") > "$out" 2>&1
	rc=$?

	# The judgement of judgelitmus.sh, LKMM (not --hw) flavour.
	result=$(grep -m1 '^[( ]\* Result: ' "$f")
	expect=$(awk '{ print $3 }' <<<"$result")
	race_predicted=0 race_modeled=0
	grep -q 'DATARACE' <<<"$result" && race_predicted=1
	grep -q '^Flag data-race$' "$out" && race_modeled=1
	obs=$(grep -m1 '^Observation ' "$out")
	got=$(awk '{ print $3 }' <<<"$obs")
	states=$(sed -n 's/^States \([0-9]*\)$/\1/p' "$out" | head -n1)
	time=$(awk '/^Time /{ print $3; exit }' "$out")
	why= note=
	if [ -z "$result" ]; then
		why="no '(* Result: ...' line"
	elif [ $race_predicted -eq 1 ] && [ $race_modeled -eq 0 ]; then
		why="predicted data race not modeled"
	elif [ $race_predicted -eq 0 ] && [ $race_modeled -eq 1 ]; then
		why="unexpected data race modeled"
	elif [ -z "$obs" ]; then
		if [ $rc -eq 124 ]; then
			why="timeout after ${BB_LITMUS_TIMEOUT:-600}s"
		elif grep -q ': Unknown macro ' "$out"; then
			why="this LKMM does not know \"$(sed -n 's/^.*: Unknown macro \(.*\) (User error).*$/\1/p' "$out" | head -n1)\""
		else
			why="verification error (herd7 rc=$rc)"
		fi
	elif [ "$expect" = DEADLOCK ]; then
		grep -q 'Never 0 0$' <<<"$obs" ||
			why="expected DEADLOCK, herd7 says $got"
	elif grep -q 'Never 0 0$' <<<"$obs"; then
		why="unexpected deadlock (no execution at all), expected $expect"
	elif [ "$got" = "$expect" ] || [ "$expect" = Maybe ]; then
		:
	elif [ $race_modeled -eq 1 ]; then
		note=" # forgiven (data race): expected $expect, herd7 says $got"
	else
		why="expected $expect, herd7 says $got"
	fi

	if [ -z "$why" ]; then
		echo "ok $n litmus: $name ($got)$note"
		echo "# herd7: $(cut -d' ' -f3- <<<"$obs"), states ${states:-?}, time ${time:-?}s"
	else
		bad=$((bad + 1))
		echo "not ok $n litmus: $name ($why)"
		tail -n 20 "$out" | sed 's/^/# /'
	fi
done
[ $bad -eq 0 ] || { echo "# $bad of $n litmus test(s) did not match their Result: line"; exit 1; }
exit 0
