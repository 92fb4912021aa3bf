#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The scratch disks of the test guest, for scripts/test.sh (sourced).

# guest_disks DIR TIER -- make the disk images in DIR and set disks to the
# boot.sh options (-q ARG...) that attach them.  The CI tier leaves out the
# MegaRAID disk: test_drivers_01 then tests two multi-queue drivers (the
# batch that spans hw queues, mutant 13), not all three.
guest_disks() {
	local dir=$1 tier=$2

	# A scratch NVMe controller with several queues, for the reset stress.
	truncate -s 256M "$dir/nvme.img"
	disks=(-q -drive -q "file=$dir/nvme.img,if=none,id=bbnvme,format=raw"
	      -q -device -q "nvme,serial=bbnvme,drive=bbnvme,max_ioqpairs=4")
	# Scratch SCSI disks behind real drivers, for test_drivers_01: QEMU's
	# emulated LSI MegaRAID (megasas-gen2: megaraid_sas) and virtio-scsi (two
	# request queues), found by their model "bbscratch"
	truncate -s 256M "$dir/vscsi.img"
	disks+=(-q -drive -q "file=$dir/vscsi.img,if=none,id=bbvs,format=raw"
	       -q -device -q "virtio-scsi-pci,id=bbvscsi,num_queues=2"
	       -q -device -q "scsi-hd,drive=bbvs,bus=bbvscsi.0,product=bbscratch")
	[ "$tier" = ci ] && return
	truncate -s 256M "$dir/megasas.img"
	disks+=(-q -drive -q "file=$dir/megasas.img,if=none,id=bbmega,format=raw"
	       -q -device -q "megasas-gen2,id=bbmegasas"
	       -q -device -q "scsi-hd,drive=bbmega,bus=bbmegasas.0,product=bbscratch")
}
