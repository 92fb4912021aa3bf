#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One application of the series to the cached base at a time: two 'git
# am' at once break its index.  While another command holds the cached
# tree, apply-series.sh waits for it; past BB_APPLY_WAIT seconds it gives
# up with a clear message and leaves the tree as it was.  Once the other
# command is done, it applies.
. "$(dirname "$0")/lib.sh"

base=$(mk_cached_base)
mk_fake_series "$T/patches"
head=$(git -C "$base" rev-parse HEAD)

# another command holds the lock for 30 s (flock -o: the sleep does not
# keep it once flock is gone)
flock -o "$base.apply-lock" sleep 30 &
holder=$!
for _ in $(seq 50); do
	flock -n "$base.apply-lock" true || break
	sleep 0.1
done
! flock -n "$base.apply-lock" true || fail "the stand-in command did not take the lock"
t0=$SECONDS
BB_PATCHES=$T/patches BB_APPLY_WAIT=2 expect_fail \
	"another command kept applying the series to .* for 2s" "$TOP/scripts/apply-series.sh"
grep -q "waiting for another command" "$T/err" || { cat "$T/err"; fail "no word of the wait"; }
[ $((SECONDS - t0)) -lt 20 ] || fail "apply-series.sh waited $((SECONDS - t0))s, not BB_APPLY_WAIT=2"
[ "$(git -C "$base" rev-parse HEAD)" = "$head" ] && [ -z "$(git -C "$base" status --porcelain)" ] ||
	fail "the cached tree changed while another command held it"
pkill -P "$holder" 2> /dev/null
kill "$holder" 2> /dev/null
wait "$holder" 2> /dev/null
tree=$(BB_PATCHES=$T/patches "$TOP/scripts/apply-series.sh" 2> "$T/err") ||
	{ cat "$T/err"; fail "apply-series.sh failed once the lock was free"; }
[ "$tree" = "$base" ] || fail "applied to $tree, not the cached base $base"
[ "$(git -C "$base" rev-list --count block-batch-base..HEAD)" -eq 2 ] ||
	fail "the two patches are not on the cached base"
echo "ok: a second application waits, gives up after BB_APPLY_WAIT with the tree untouched, and applies once the first is done"
