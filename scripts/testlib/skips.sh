#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Which skips a run of scripts/test.sh accepts (sourced): those that
# tests/expected-skips names for the run's conditions.  Any other skip
# fails the run.

# skips_file -- the list of expected skips (BB_EXPECTED_SKIPS overrides it,
#   for tests/host/test_skips_01.sh)
skips_file() {
	echo "${BB_EXPECTED_SKIPS:-$BB_TOP/tests/expected-skips}"
}

# skips_entries FILE -- the entries of FILE, "TEST|WHEN|WHY" a line, the
#   fields trimmed; a malformed line goes to stderr as "LINE: TEXT", and
#   the status is 1 then
skips_entries() {
	awk -F' [|] ' '
		/^[[:space:]]*(#|$)/ { next }
		{
			for (i = 1; i <= NF; i++)
				gsub(/^[[:space:]]+|[[:space:]]+$/, "", $i)
			if (NF != 3 || $1 == "" || $2 == "" || $3 == "") {
				print FILENAME ":" NR ": not \"TEST | WHEN | WHY\": " $0 > "/dev/stderr"
				bad = 1
				next
			}
			n = split($2, w, " ")
			for (i = 1; i <= n; i++)
				if (w[i] != "always" &&
				    w[i] !~ /^(tier=(ci|full|tests)|smp=[0-9]+|fragment=[A-Za-z0-9_.-]+)$/) {
					print FILENAME ":" NR ": unknown condition \"" w[i] "\"" > "/dev/stderr"
					bad = 1
				}
			print $1 "|" $2 "|" $3
		}
		END { exit bad }' "$1"
}

# skip_expected NAME TIER SMP FRAGMENTS -- true when an entry of the list
#   matches the TAP name NAME and all its conditions hold for a run of
#   TIER (ci, full, tests) with SMP vCPUs and the config FRAGMENTS (their
#   names, space separated; empty for none)
skip_expected() {
	local name=$1 tier=$2 smp=$3 frags=" ${4:-none} " test when why w ok

	while IFS='|' read -r test when why; do
		# shellcheck disable=SC2053 # TEST is a pattern
		[[ $name == $test ]] || continue
		ok=1
		for w in $when; do
			case $w in
			always) ;;
			tier=*) [ "${w#tier=}" = "$tier" ] || ok=0 ;;
			smp=*) [ "${w#smp=}" = "$smp" ] || ok=0 ;;
			fragment=*) [[ $frags == *" ${w#fragment=} "* ]] || ok=0 ;;
			esac
		done
		[ $ok -eq 1 ] && return 0
	done < <(skips_entries "$(skips_file)" 2>/dev/null)
	return 1
}
