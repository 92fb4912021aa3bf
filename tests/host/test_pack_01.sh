#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The --pack bundle (scripts/bench/pack.sh) is whole: moved away from where
# it was made, its run.sh starts the guests through the launcher it ships
# and writes the report.  A script the bundle's scripts need and pack.sh
# does not copy fails here.  QEMU is a stand-in: a small dynamic program
# packed as QEMU, and the benchmark guest of mk_bench_qemu to run.
. "$(dirname "$0")/lib.sh"

[ -e /usr/share/seabios/bios-256k.bin ] && command -v ldd > /dev/null ||
	{ echo "SKIP: no SeaBIOS or ldd here: pack.sh cannot pack a QEMU"; exit 4; }
mkdir -p "$T/bin"
cp "$(type -P true)" "$T/bin/qemu-system-x86_64" || fail "no true(1) to pack"
printf 'k1' > "$T/k1" && printf 'k2' > "$T/k2" && printf 'i' > "$T/i"
PATH=$T/bin:$PATH "$TOP/scripts/bench/pack.sh" "$T/made" "$T/k1" "$T/k2" "$T/i" \
	2> "$T/pack.err" || { cat "$T/pack.err"; fail "pack.sh failed"; }
mv "$T/made" "$T/moved" || fail "cannot move the bundle"
mk_bench_qemu "$T/qemu"
mkdir -p "$T/run"
(cd "$T/run" && "$T/moved/run.sh" -a tcg -s 2 -r 1 -q "$T/qemu") \
	> "$T/run.out" 2> "$T/run.err" || { cat "$T/run.err"; fail "the bundle's run.sh failed"; }
grep -q '^run-guests: case 4 of 4 (guest 2 of 2): ' "$T/run.err" &&
[ -s "$T/run/out/summary.csv" ] ||
	{ cat "$T/run.err"; fail "the bundle ran no guests or wrote no report"; }
echo "ok: the bundle runs from where it was moved: both guests, the report"
