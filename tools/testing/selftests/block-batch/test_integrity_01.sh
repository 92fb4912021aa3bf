#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Data integrity through every I/O scheduler (none, mq-deadline, bfq, kyber)
# with io_uring: several fio jobs write disjoint ranges of a memory-backed
# multi-queue null_blk with crc32c verify, then read them back.

. "$(cd "$(dirname "$0")" && pwd)"/test_common.sh

_integrity_test io_uring
