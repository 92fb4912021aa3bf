#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How fast is this machine?  Compiles one fixed, generated C file with
# "gcc -O2" (no ccache) three times and prints the best time and the
# machine factor: that time over the reference machine's (REF_SECS below).
# A factor of 2.0 means that a stage is expected to take twice the
# reference machine's time here; scripts/test.sh scales its stage
# estimates by it, and every record under results/ keeps it in meta.txt.
#
# usage: calibrate.sh
# Prints one line:  calibration SECS s, factor F (reference REF_SECS s)

set -u
. "$(dirname "$0")/lib.sh"

# The best of three on the machine of the reference stage times in
# docs/testing.md ("What a run costs"): a 2-core Intel Xeon guest, Debian
# 12, gcc 12, idle.
REF_SECS=0.97

case ${1:-} in
"") ;;
-h|--help) bb_help "$0"; exit 0 ;;
*) echo "usage: $0" >&2; exit 2 ;;
esac
need_tools gcc awk
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bb-calibrate.XXXXXX") || die "cannot make a scratch directory"
trap 'rm -rf "$tmp"' EXIT

# 200 functions of loops, branches and arithmetic: work for the optimizer
# and the register allocator, as kernel code is.
awk 'BEGIN {
	for (i = 0; i < 200; i++) {
		printf "unsigned long f%d(unsigned long *a, int n)\n{\n", i
		printf "\tunsigned long s = %d;\n\tint j, k;\n\n", i
		printf "\tfor (j = 0; j < n; j++) {\n"
		printf "\t\tfor (k = 0; k < %d; k++)\n", i % 7 + 2
		printf "\t\t\ts += (a[j] << %d) ^ (s >> %d) ^ k;\n", i % 13, i % 11 + 1
		printf "\t\tif (s & %d)\n\t\t\ta[j] = s * %d;\n", i + 1, i + 3
		printf "\t\telse\n\t\t\ts -= a[(j + %d) %% n];\n\t}\n", i
		printf "\treturn s;\n}\n\n"
	}
}' > "$tmp/calib.c" || die "cannot write $tmp/calib.c"

best=
for _ in 1 2 3; do
	t0=$(date +%s.%N)
	gcc -O2 -c -o "$tmp/calib.o" "$tmp/calib.c" || die "gcc failed on $tmp/calib.c"
	t1=$(date +%s.%N)
	best=$(awk -v a="$t0" -v b="$t1" -v m="${best:-}" \
		'BEGIN { d = b - a; if (m != "" && m < d) d = m; printf "%.2f", d }')
done
awk -v s="$best" -v r="$REF_SECS" \
	'BEGIN { printf "calibration %.2f s, factor %.2f (reference %.2f s)\n", s, s / r, r }'
