#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test guest, for scripts/test.sh (sourced): its kernel command line and
# its scratch disks.  The QEMU side of both is scripts/boot.sh's.

# The kernel command line of the test guests (series and base), before their
# bb.* options: the debug messages, an oops ends the guest, no scsi_debug
# or null_blk device until a test makes its own, and a poll queue on the
# NVMe controller (test_complete_05: polled passthrough commands; the
# queue maps are set when the driver binds, so not at run time).
GUEST_APPEND="loglevel=6 oops=panic scsi_debug.add_host=0 scsi_debug.dev_size_mb=64 tsc=reliable"
GUEST_APPEND+=" nvme.poll_queues=1"

# guest_disks DIR TIER -- make the disk images in DIR and set disks to the
# boot.sh options (-d KIND:IMG...) that attach them: an NVMe controller with
# four I/O queue pairs (the reset stress, test_drivers_01) and two
# namespaces (test_complete_02: completion batches of two queues), a virtio-scsi
# disk with two request queues and, but in the CI tier, a MegaRAID disk
# (test_drivers_01).  The guest's init names them for the kselftests
# (BB_SCRATCH_DEVS, BB_NVME_DEV, BB_NVME_NAMESPACES).
# The CI tier leaves out the MegaRAID disk: test_drivers_01 then tests two
# multi-queue drivers (the batch that spans hw queues, mutant 13), not all
# three.
guest_disks() {
	local dir=$1 tier=$2

	truncate -s 256M "$dir/nvme.img" "$dir/vscsi.img" || return 1
	truncate -s 64M "$dir/nvme-ns2.img" || return 1
	disks=(-d "nvme:$dir/nvme.img,queues=4,ns=$dir/nvme-ns2.img" -d "virtio-scsi:$dir/vscsi.img,queues=2")
	[ "$tier" = ci ] && return 0
	truncate -s 256M "$dir/megasas.img" || return 1
	disks+=(-d "megasas:$dir/megasas.img")
}
