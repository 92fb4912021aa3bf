#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# blk-mq's KUnit tests (CONFIG_BLK_MQ_KUNIT_TEST, block/blk-mq-kunit.c):
# which requests a driver's completion batch may take.  A reserved request
# offered to a batch must be turned away (blk_mq_end_request_batch() puts
# tags of the normal pool only), and once a driver has ended its batch and
# the refused requests, every tag of both pools can be had again.
#
# Loads the module (or reads the results of a built-in suite), and fails
# when the suite reports a case "not ok", reports no case, or loading it
# logs a splat.  Skips when the kernel has no such module or no KUnit
# debugfs (CONFIG_KUNIT_DEBUGFS).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

SUITE=blk-mq-batch
MODULE=blk-mq-kunit
CASES=2

_require_root
_require_debugfs

_prep_test "blk-mq KUnit suite $SUITE"

res=/sys/kernel/debug/kunit/$SUITE/results
loaded=0
if [ ! -r "$res" ]; then
	_have_program modprobe || _skip "no modprobe to load $MODULE"
	modprobe -q "$MODULE" 2> "$BB_TMP/modprobe.err" ||
		_skip "no module $MODULE (CONFIG_BLK_MQ_KUNIT_TEST):" \
		      "$(head -n 1 "$BB_TMP/modprobe.err")"
	loaded=1
fi
if [ ! -r "$res" ]; then
	[ $loaded -eq 0 ] || modprobe -q -r "$MODULE"
	_skip "no $res (CONFIG_KUNIT_DEBUGFS)"
fi
cp "$res" "$BB_TMP/results"
[ $loaded -eq 0 ] || modprobe -q -r "$MODULE" ||
	_fail "cannot unload $MODULE"

sed 's/^/# kunit: /' "$BB_TMP/results"
ok=$(grep -cE '^[[:space:]]+ok [0-9]+ ' "$BB_TMP/results")
bad=$(grep -cE '^[[:space:]]*not ok [0-9]+ ' "$BB_TMP/results")
_log "$SUITE: $ok of $CASES cases ok, $bad not ok"
[ "$bad" -eq 0 ] || _fail "$SUITE: $bad results not ok"
[ "$ok" -eq "$CASES" ] || _fail "$SUITE: $ok cases passed, expected $CASES"
grep -qE "^ok [0-9]+ $SUITE\$" "$BB_TMP/results" ||
	_fail "$SUITE: no passing result line for the suite"
_show_result
