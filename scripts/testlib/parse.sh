#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Parsers of a test guest's console log, for scripts/test.sh (sourced).
# Each reads LOG, the console with carriage returns removed.

# ublk_results LOG -- "TEST VERDICT" (pass, fail, skip) per ublk selftest
ublk_results() {
	sed -n 's/^\(not \)\{0,1\}ok [0-9]* selftests: ublk: \(test_[a-z0-9_]*\.sh\)\(.*\)$/\1|\2|\3/p' "$1" |
	awk -F'|' '{ v = "pass"; if ($1 != "") v = "fail"; else if ($3 ~ /# SKIP/) v = "skip"; print $2, v }'
}

# blktests_results LOG -- "STATUS|NAME (CONDITION)" per result line of
# blktests' ./check (or the shim's) in a guest log:
#   block/053 (sched=bfq) (DESCRIPTION)          [passed]
# the lines below a result (skip reasons, the diff of a failure, ./check's
# runtime) as "#|" comments.  ./check's line before a test runs (its name,
# no status) is left out.
blktests_results() {
	sed -n '/^BB-BLKTESTS-BEGIN/,/^BB-BLKTESTS-END/p' "$1" | awk '
		/^block\/[0-9]+ .*\[(passed|failed|not run)\]$/ {
			st = $0; sub(/.*\[/, "", st); sub(/\]$/, "", st)
			cond = ""
			if ($2 ~ /^\([^()]*=[^()]*\)$/)
				cond = " " $2
			print st "|" $1 cond
			next
		}
		/^    / { print "#|" $0 }'
}

# merge_ratios LOG -- "SCHED CASE RATIO" per merge_01 line of a guest log
# (the kselftest runner prefixes the test's "# " lines with another "# ")
merge_ratios() {
	sed -n 's/^\(# \)*merge_01: sched=\([^ ]*\) case=\([^ ]*\) .* ratio=\([0-9.]*\).*/\2 \3 \4/p' "$1"
}
# merge_iops LOG -- "SCHED CASE IOPS" per merge_01 IOPS line of a guest log
# (the HDD-like cases hdd and sd-hdd)
merge_iops() {
	sed -n 's/^\(# \)*merge_01: sched=\([^ ]*\) case=\([^ ]*\) iops=\([0-9][0-9]*\).*/\2 \3 \4/p' "$1"
}

# test_durations LOG -- "SECONDS NAME" per test that logged its duration:
# block-batch's kselftests ("# NAME: took N s", _show_result) and the
# kernel's ublk selftests ("# ublk_NAME: N s; ...", scripts/guest/ublk-watch)
test_durations() {
	sed -n -e 's/^\(# \)*\([a-z0-9_]*\): took \([0-9]*\) s$/\3 \2/p' \
	       -e 's/^# \(ublk_[a-z0-9_]*\): \([0-9]*\) s; .*/\2 \1/p' "$1"
}

# blktests_verdicts LOG -- one line per case and condition that blktests'
# ./check ran in a scripts/guest/blktests-upstream guest:
# "CASE|COND|VERDICT|SECONDS|REASON", VERDICT passed, failed or "not run"
# (with ./check's reason), or "timeout" for a case that the guest's bound
# ended (BB-BT rc 124 or 137), after the verdicts ./check printed for it.
# SECONDS is ./check's runtime of that condition, else the case's wall
# time in the guest.
blktests_verdicts() {
	sed -n '/^BB-BT-BEGIN/,/^BB-BT-END/p' "$1" | awk '
		function flush() {
			if (c != "")
				print c "|" cond "|" v "|" (t != "" ? t : "-") "|" why
			c = ""
		}
		/^[a-z]+\/[0-9][0-9][0-9] .*\[(passed|failed|not run)\]$/ {
			flush()
			c = $1; cond = ""
			if ($2 ~ /^\([^()]*=[^()]*\)$/)
				cond = substr($2, 2, length($2) - 2)
			v = $0; sub(/.*\[/, "", v); sub(/\]$/, "", v)
			t = ""; why = ""; seen[c] = 1
			next
		}
		c != "" && /^    runtime/ {
			t = $NF; sub(/s$/, "", t)
			next
		}
		c != "" && v == "not run" && /^    [^ ]/ {
			r = $0; sub(/^ +/, "", r); gsub(/\|/, "/", r)
			why = why (why == "" ? "" : "; ") r
			next
		}
		/^BB-BT / {
			flush()
			rc = $3; sub(/rc=/, "", rc); s = $4; sub(/secs=/, "", s)
			if (rc == 124 || rc == 137)
				print $2 "||timeout|" s "|ended by the case bound, rc " rc
			else if (!($2 in seen))
				print $2 "||no verdict|" s "|rc " rc
			for (k in seen) delete seen[k]
		}
		END { flush() }'
}
