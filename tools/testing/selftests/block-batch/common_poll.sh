# SPDX-License-Identifier: GPL-2.0
#
# Polled I/O on a null_blk device with a poll queue, for the tests that
# count it with kprobes.
# Sourced by test_common.sh.

# _require_polled_probes [EVENT] -- what a test of polled I/O counted
#   with kprobes needs: root, fio with io_uring, awk, null_blk, debugfs,
#   the trace event EVENT (mounts tracefs; skips when it is in use), or
#   without EVENT tracefs alone, and kprobes
_require_polled_probes() {
	_require_root
	_require_program fio
	_require_program awk
	_require_fio_engine io_uring
	_require_null_blk
	_require_debugfs
	if [ $# -gt 0 ]; then
		_require_trace_event "$1"
	else
		_require_tracefs
	fi
	_require_kprobes
}

# _nullb_create_polled NAME [PARAM]... -- _nullb_create NAME with one poll
#   queue (and PARAMs), or skip when null_blk cannot poll
_nullb_create_polled() {
	local name=$1

	shift
	_nullb_create "$name" poll_queues=1 "$@" ||
		_skip "null_blk cannot create a device with a poll queue"
	[ "$(cat "/sys/block/$name/queue/io_poll")" = 1 ] ||
		_skip "$name does not support polling"
}
