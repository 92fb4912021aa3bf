#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# blk-mq's KUnit suite of the quiesce depth (CONFIG_BLK_MQ_KUNIT_TEST,
# block/blk-mq-kunit.c): an unquiesce without a quiesce warns once and
# leaves the depth at zero, so that the next quiesce quiesces the queue;
# and nested quiesces keep the queue quiesced until the last unquiesce.
#
# Fails when the suite reports a case "not ok" or reports no case, or
# when loading it logs a splat (the suite expects and hides the one
# warning of the unbalanced unquiesce).  Skips when the kernel has no such
# module or no KUnit debugfs (CONFIG_KUNIT_DEBUGFS).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh
. "$(cd "$(dirname "$0")" && pwd)"/common_kunit.sh

_require_root
_require_debugfs

_prep_test "blk-mq KUnit suite blk-mq-quiesce"
_kunit_suite blk-mq-quiesce 2
_show_result
