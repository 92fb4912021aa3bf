# SPDX-License-Identifier: GPL-2.0
#
# blk-mq's KUnit suites (CONFIG_BLK_MQ_KUNIT_TEST, block/blk-mq-kunit.c),
# run by loading their module and judged from KUnit's debugfs results.
# Sourced by test_kunit_NN.sh after test_common.sh.

BB_KUNIT_MODULE=blk-mq-kunit

# _kunit_suite SUITE CASES -- run blk-mq's KUnit suite SUITE: load the
#   module (or read the results of a built-in suite), and fail when the
#   suite reports a case "not ok", other than CASES passing cases, or no
#   passing result line for itself.  Skips when the kernel has no such
#   module or no KUnit debugfs (CONFIG_KUNIT_DEBUGFS).
_kunit_suite() {
	local suite=$1 cases=$2 res loaded=0 ok bad

	res=/sys/kernel/debug/kunit/$suite/results
	if [ ! -r "$res" ]; then
		_have_program modprobe || _skip "no modprobe to load $BB_KUNIT_MODULE"
		modprobe -q "$BB_KUNIT_MODULE" 2> "$BB_TMP/modprobe.err" ||
			_skip "no module $BB_KUNIT_MODULE (CONFIG_BLK_MQ_KUNIT_TEST):" \
			      "$(head -n 1 "$BB_TMP/modprobe.err")"
		loaded=1
	fi
	if [ ! -r "$res" ]; then
		[ $loaded -eq 0 ] || modprobe -q -r "$BB_KUNIT_MODULE"
		_skip "no $res (CONFIG_KUNIT_DEBUGFS)"
	fi
	cp "$res" "$BB_TMP/results"
	[ $loaded -eq 0 ] || modprobe -q -r "$BB_KUNIT_MODULE" ||
		_fail "cannot unload $BB_KUNIT_MODULE"

	sed 's/^/# kunit: /' "$BB_TMP/results"
	ok=$(grep -cE '^[[:space:]]+ok [0-9]+ ' "$BB_TMP/results")
	bad=$(grep -cE '^[[:space:]]+not ok [0-9]+ ' "$BB_TMP/results")
	_log "$suite: $ok of $cases cases ok, $bad not ok"
	[ "$bad" -eq 0 ] || _fail "$suite: $bad cases not ok"
	[ "$ok" -eq "$cases" ] || _fail "$suite: $ok cases passed, expected $cases"
	grep -qE "^ok [0-9]+ $suite\$" "$BB_TMP/results" ||
		_fail "$suite: no passing result line for the suite"
}
