# SPDX-License-Identifier: GPL-2.0
#
# Tags, requests and budgets held by a queue once it is idle: a leak
# shows as a busy tag, an outstanding budget or a request in flight.
# Sourced by test_common.sh.

# _busy_sum FILE -- sum of the "busy=" lines of a debugfs tags file
_busy_sum() {
	awk -F= '/^busy=/ { s += $2 } END { print s + 0 }' "$1" 2>/dev/null
}

# _tags_idle DEV -- check that DEV holds no tag, request or budget.  Prints
# what is wrong to $BB_TMP/idle.DEV and the counts checked to
# $BB_TMP/counts.DEV ("hctxs tagfiles schedfiles nr_tags").
_tags_idle() {
	local dev=$1 h f kind c nh=0 nt=0 ns=0 nr_tags='?' bad=0 r w
	local out=$BB_TMP/idle.$dev

	: > "$out"
	# debugfs files have size 0: read them, do not test -s.
	for h in "$BB_DEBUGFS/$dev"/hctx*; do
		[ -d "$h" ] || continue
		nh=$((nh + 1))
		for kind in tags sched_tags; do
			c=$(cat "$h/$kind" 2>/dev/null)
			[ -n "$c" ] || continue
			if ! echo "$c" | grep -q '^busy='; then
				echo "${h##*/}/$kind: no busy= line" >> "$out"
				bad=1
				continue
			fi
			if [ "$kind" = tags ]; then
				nt=$((nt + 1))
				nr_tags=$(echo "$c" | sed -n 's/^nr_tags=//p')
			else
				ns=$((ns + 1))
			fi
			if echo "$c" | grep '^busy=' | grep -qv '^busy=0$'; then
				c=$(echo "$c" | grep '^busy=' | tr '\n' ' ')
				echo "${h##*/}/$kind: $c" >> "$out"
				bad=1
			fi
		done
		for f in "$h/busy" "$h/dispatch" "$h"/cpu*/*_rq_list; do
			[ -e "$f" ] || continue
			c=$(head -n 3 "$f")
			[ -z "$c" ] && continue
			echo "${f#"$BB_DEBUGFS/$dev/"}: $(echo "$c" | tr '\n' ' ')" >> "$out"
			bad=1
		done
		c=$(cat "$h/active" 2>/dev/null)
		if [ -n "$c" ] && [ "$c" != 0 ]; then
			echo "${h##*/}/active: $c" >> "$out"
			bad=1
		fi
	done
	read -r r w < "/sys/block/$dev/inflight"
	if [ "$r" != 0 ] || [ "$w" != 0 ]; then
		echo "inflight: $r $w" >> "$out"
		bad=1
	fi
	# A SCSI disk: its dispatch budgets and its host's tags are back too.
	for f in "/sys/block/$dev/device/device_busy" \
		 "$(_scsi_host "$dev" 2>/dev/null)/host_busy"; do
		[ -f "$f" ] || continue
		c=$(cat "$f")
		[ "$c" = 0 ] && continue
		echo "${f#/sys/}: $c" >> "$out"
		bad=1
	done
	if [ $nh -eq 0 ] || [ $nt -eq 0 ]; then
		echo "no hctx tags files under $BB_DEBUGFS/$dev" >> "$out"
		bad=1
	fi
	echo "$nh $nt $ns $nr_tags" > "$BB_TMP/counts.$dev"
	return $bad
}

# _check_idle SCHED DEV... -- after fio: every tag of every DEV is back
#   (_tags_idle), and for a SCSI disk every dispatch budget and host tag
#   (device_busy, host_busy).
#   A tag is freed right after the completion that fio waits for: allow
#   two more looks a second apart before calling it a leak.
_check_idle() {
	local sched=$1 dev try nh nt ns nr ok
	shift

	for dev in "$@"; do
		ok=0
		for try in 1 2 3; do
			if _tags_idle "$dev"; then
				ok=1
				break
			fi
			[ $try -lt 3 ] && sleep 1
		done
		read -r nh nt ns nr < "$BB_TMP/counts.$dev"
		if [ $ok -eq 0 ]; then
			sed 's/^/#   /' "$BB_TMP/idle.$dev"
			_fail "$sched: $dev holds tags or requests while idle"
			continue
		fi
		if [ "$sched" != none ] && [ "$ns" -ne "$nh" ]; then
			_fail "$sched: $dev: $ns sched_tags files for $nh hctxs"
			continue
		fi
		_log "$sched: $dev idle after $try check(s): $nh hctxs, $nt tags" \
		     "+ $ns sched_tags files all busy=0 (nr_tags=$nr)," \
		     "dispatch/busy/ctx lists empty, active 0, inflight 0 0" \
		     "$([ -f "/sys/block/$dev/device/device_busy" ] &&
			echo ", SCSI device_busy 0, host_busy 0")"
	done
}
