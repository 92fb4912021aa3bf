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
# "CASE|COND|VERDICT|SECONDS|REASON|AFTER", VERDICT passed, failed or
# "not run" (with ./check's reasons: the case's, or its group's, printed
# as GROUP/***), "timeout" for a case that the guest's bound ended (BB-BT
# rc 124, or 137 at or past the bound: timeout -k's KILL), "killed" for
# one that a SIGKILL ended before its bound (rc 137 earlier: the OOM
# killer), after the verdicts ./check printed for it, or "no
# verdict" where ./check printed none (but for a test_device() case
# without TEST_DEVS, which ./check skips silently: "not run").  SECONDS
# is ./check's runtime of that condition, else the case's wall time in
# the guest.  COND is the first of two parenthesised groups after the
# case's name (blktests' COND_DESC), and for a test_device() case the
# device after "=>" (", DEV" after a COND_DESC).
# AFTER is the case that timed out or was killed before this one in the
# same guest, if any ("CASE timed out", "CASE was killed"): its leftovers
# (modules, loop devices, nvmet ports) may remain.  A BB-BT line without
# "bound=" (a log from before the guest printed it) counts every rc 137
# as a timeout.
blktests_verdicts() {
	sed -n '/^BB-BT-BEGIN/,/^BB-BT-END/p' "$1" | awk '
		function flush() {
			if (c != "" && c !~ /\/\*\*\*$/)
				print c "|" cond "|" v "|" (t != "" ? t : "-") "|" why "|" after
			c = ""
		}
		/^[a-z]+\/([0-9][0-9][0-9]|\*\*\*) .*\[(passed|failed|not run)\]$/ {
			flush()
			c = $1; cond = ""
			rest = substr($0, length(c) + 2)
			# a test_device() case: "=> DEV [DEV...]" first (one
			# verdict per TEST_DEVS entry), then "(COND_DESC)", then
			# "(DESCRIPTION)"
			d = ""
			if (rest ~ /^=> /) {
				d = substr(rest, 4); sub(/ +[([].*$/, "", d)
				rest = substr(rest, 4 + length(d)); sub(/^ +/, "", rest)
			}
			if (match(rest, /^\([^()]*\) +\(/))
				cond = substr(rest, 2, index(rest, ")") - 2)
			if (d != "")
				cond = cond (cond == "" ? "" : ", ") d
			v = $0; sub(/.*\[/, "", v); sub(/\]$/, "", v)
			t = ""; why = ""
			if (c !~ /\/\*\*\*$/)
				seen = 1
			else
				gwhy = ""
			next
		}
		c != "" && /^    runtime/ {
			t = $NF; sub(/s$/, "", t)
			next
		}
		c != "" && v == "not run" && /^    [^ ]/ {
			r = $0; sub(/^ +/, "", r); gsub(/\|/, "/", r)
			why = why (why == "" ? "" : "; ") r
			if (c ~ /\/\*\*\*$/)
				gwhy = why
			next
		}
		/^BB-BT / {
			flush()
			rc = $3; sub(/rc=/, "", rc); s = $4; sub(/secs=/, "", s)
			bound = ""
			if ($6 ~ /^bound=[0-9]+$/) {
				bound = $6; sub(/bound=/, "", bound)
			}
			ended = ""
			if (rc == 137 && bound != "" && s + 0 < bound + 0) {
				print $2 "||killed|" s "|SIGKILL after " s " s, before the case bound of " bound " s: the OOM killer or the case, see the log|" after
				ended = $2 " was killed"
			} else if (rc == 124 || rc == 137) {
				print $2 "||timeout|" s "|ended by the case bound, rc " rc "|" after
				ended = $2 " timed out"
			} else if (!seen && gwhy != "")
				print $2 "||not run|-|" gwhy "|" after
			else if (!seen && $5 == "dev=1")
				print $2 "||not run|-|a test_device() case, and TEST_DEVS is empty|" after
			else if (!seen)
				print $2 "||no verdict|" s "|rc " rc "|" after
			if (ended != "")
				after = ended
			seen = 0; gwhy = ""
		}
		END { flush() }'
}

# blktests_table BASE SERIES -- the markdown table of two blktests_verdicts
# outputs: a row per case and condition that either reports, both
# verdicts and runtimes, and "**differs**" where the verdicts do (else
# the shared reason of a case not run on both); a row after a case that
# timed out or was killed on a kernel says so.
blktests_table() {
	echo "| case | base | series | base s | series s | |"
	echo "|---|---|---|---|---|---|"
	awk -F'|' '
		{ key = $1 ($2 != "" ? " (" $2 ")" : "") }
		!(key in seen) { seen[key] = 1; order[n++] = key }
		FILENAME == ARGV[1] { v1[key] = $3; t1[key] = $4; w1[key] = $5; a1[key] = $6 }
		FILENAME == ARGV[2] { v2[key] = $3; t2[key] = $4; w2[key] = $5; a2[key] = $6 }
		END {
			for (i = 0; i < n; i++) {
				k = order[i]
				a = (k in v1) ? v1[k] : "absent"; b = (k in v2) ? v2[k] : "absent"
				note = (a != b) ? "**differs**" : ""
				if (a == b && a != "passed" && w1[k] == w2[k])
					note = w1[k]
				if (a1[k] != "")
					note = note (note == "" ? "" : "; ") "after " a1[k] " on the base"
				if (a2[k] != "")
					note = note (note == "" ? "" : "; ") "after " a2[k] " on the series"
				printf "| %s | %s | %s | %s | %s | %s |\n", k, a, b, \
					(k in t1) ? t1[k] : "-", (k in t2) ? t2[k] : "-", note
			}
		}' "$1" "$2"
}
