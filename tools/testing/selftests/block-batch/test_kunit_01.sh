#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# blk-mq's KUnit suite of completion batches (CONFIG_BLK_MQ_KUNIT_TEST,
# block/blk-mq-kunit.c): which requests a driver's completion batch may
# take.  A reserved request offered to a batch must be turned away
# (blk_mq_end_request_batch() puts tags of the normal pool only), and once
# a driver has ended its batch and the refused requests, every tag of both
# pools can be had again.
#
# Fails when the suite reports a case "not ok" or reports no case, or
# when loading it logs a splat.  Skips when the kernel has no such module
# or no KUnit debugfs (CONFIG_KUNIT_DEBUGFS).

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh
. "$(cd "$(dirname "$0")" && pwd)"/common_kunit.sh

_require_root
_require_debugfs

_prep_test "blk-mq KUnit suite blk-mq-batch"
_kunit_suite blk-mq-batch 2
_show_result
