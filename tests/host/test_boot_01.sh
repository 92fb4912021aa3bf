#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The one QEMU launcher (scripts/boot.sh) and its scratch disks, for both
# kinds of guest: the test guest gets the NVMe (two namespaces) and
# virtio-scsi disks (and MegaRAID but in the CI tier) with their queues,
# the benchmark guest the disk run-guests.sh is given; bad disks are
# refused; a guest past its timeout, whose console is silent for -w
# seconds, or whose launcher is terminated, is killed; one that prints is
# not.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/testlib/guest.sh"

touch "$T/k" "$T/i"
# has LINE PATTERN WHAT -- the command line LINE must hold PATTERN
has() { grep -qF -e "$2" <<< "$1" || { echo "$1"; fail "no $3 in the QEMU command line"; }; }

# --- the test guest's disks, CI and long tier -----------------------------
for tier in ci full; do
	mkdir -p "$T/$tier"
	guest_disks "$T/$tier" $tier || fail "guest_disks $tier failed"
	line=$("$TOP/scripts/boot.sh" -n "${disks[@]}" -x "$GUEST_APPEND bb.mode=test" \
		"$T/k" "$T/i" "$T/log") || fail "boot.sh -n refused the test guest's disks"
	has "$line" "-device nvme,id=bbnvme0,serial=bbnvme,max_ioqpairs=4 -device nvme-ns,drive=bbdisk0,bus=bbnvme0,nsid=1 " \
		"NVMe with 4 queue pairs ($tier)"
	has "$line" "-drive file=$T/$tier/nvme-ns2.img,if=none,id=bbdisk0n2,format=raw -device nvme-ns,drive=bbdisk0n2,bus=bbnvme0,nsid=2 " \
		"second NVMe namespace ($tier)"
	has "$line" "-device virtio-scsi-pci,id=bbhba1,num_queues=2 -device scsi-hd,drive=bbdisk1,bus=bbhba1.0,product=bbscratch " \
		"virtio-scsi disk with 2 queues ($tier)"
	has "$line" "file=$T/$tier/nvme.img," "NVMe image ($tier)"
	has "$line" " noirqdebug'" "noirqdebug with the NVMe ($tier)"
	has "$line" "'console=ttyS0 panic=-1 null_blk.nr_devices=0 loglevel=6 oops=panic" "test guest command line ($tier)"
	if [ $tier = ci ]; then
		! grep -q megasas <<< "$line" || fail "the CI tier's guest has the MegaRAID disk"
	else
		has "$line" "-device megasas-gen2,id=bbhba2 -device scsi-hd,drive=bbdisk2,bus=bbhba2.0,product=bbscratch" \
			"MegaRAID disk (full)"
	fi
done
echo "ok: the test guest: NVMe and virtio-scsi disks, MegaRAID in the long tier"

# --- the benchmark guest: run-guests.sh hands its disk to each guest -------
cat > "$T/qemu" <<'EOT'
#!/bin/bash
echo "$*" >> "${0%/*}/qemu.args"
while [ $# -gt 0 ]; do
	case $1 in -serial) log=${2#file:}; shift ;; esac
	shift
done
echo BB-DMESG-END >> "$log"
EOT
chmod +x "$T/qemu"
truncate -s 1M "$T/d.img"
"$TOP/scripts/bench/run-guests.sh" -q "$T/qemu" -r 1 -l -s 3 -x "bb.runtime=1" \
	-d "virtio-scsi:$T/d.img,queues=3,nonrot" -o "$T/rg" "$T/k" "$T/k" "$T/i" \
	> /dev/null 2> "$T/rg.err" || { cat "$T/rg.err"; fail "run-guests.sh -d failed"; }
[ "$(grep -c -- "-smp 3 -m 4G .*loglevel=4 bb.mode=bench bb.runtime=1 bb.kernel=.* -device virtio-scsi-pci,id=bbhba0,num_queues=3 -device scsi-hd,drive=bbdisk0,bus=bbhba0.0,product=bbscratch,rotation_rate=1$" "$T/qemu.args")" -eq 2 ] ||
	{ cat "$T/qemu.args"; fail "run-guests.sh did not give both guests its disk and command line"; }
echo "ok: the benchmark guest: run-guests.sh -d, -s, -x through the launcher"

# --- bad disks: a clear message before any guest ---------------------------
expect_fail "KIND is nvme, virtio-scsi or megasas, not 'sata'" \
	"$TOP/scripts/boot.sh" -n -d "sata:$T/d.img" "$T/k" "$T/i" "$T/log"
expect_fail "ns= is for NVMe" \
	"$TOP/scripts/boot.sh" -n -d "virtio-scsi:$T/d.img,ns=$T/d.img" "$T/k" "$T/i" "$T/log"
expect_fail "megasas has one queue" \
	"$TOP/scripts/boot.sh" -n -d "megasas:$T/d.img,queues=2" "$T/k" "$T/i" "$T/log"
expect_fail "cannot write $T/nope.img" \
	"$TOP/scripts/boot.sh" -n -d "nvme:$T/nope.img" "$T/k" "$T/i" "$T/log"
rm -f "$T/qemu.args"
expect_fail "unknown option 'fast'" "$TOP/scripts/bench/run-guests.sh" -q "$T/qemu" \
	-d "nvme:$T/d.img,fast" -o "$T/x" "$T/k" "$T/k" "$T/i"
[ ! -e "$T/qemu.args" ] || fail "run-guests.sh started a guest with a bad disk"

# --- a guest past its timeout, and a launcher terminated -------------------
cat > "$T/slow" <<'EOT'
#!/bin/bash
echo $$ > "${0%/*}/slow.pid"
sleep 60
EOT
chmod +x "$T/slow"
"$TOP/scripts/boot.sh" -q "$T/slow" -t 1 "$T/k" "$T/i" "$T/log" 2> /dev/null
rc=$?
[ $rc -eq 124 ] && grep -q '^BB-GUEST-TIMEOUT after 1s$' "$T/log" ||
	{ cat "$T/log"; fail "a guest past its timeout: rc=$rc, not 124 with BB-GUEST-TIMEOUT"; }
! kill -0 "$(cat "$T/slow.pid")" 2> /dev/null || fail "the guest outlived its timeout"
rm -f "$T/slow.pid"
"$TOP/scripts/boot.sh" -q "$T/slow" -t 600 "$T/k" "$T/i" "$T/log" &
bpid=$!
for _ in $(seq 100); do [ -s "$T/slow.pid" ] && break; sleep 0.1; done
[ -s "$T/slow.pid" ] || fail "the stand-in guest did not start"
kill "$bpid"
wait "$bpid"
for _ in $(seq 50); do kill -0 "$(cat "$T/slow.pid")" 2> /dev/null || break; sleep 0.1; done
! kill -0 "$(cat "$T/slow.pid")" 2> /dev/null || fail "the guest outlived its terminated launcher"
echo "ok: a guest is killed at its timeout (124) and with its launcher"

# --- a guest whose console falls silent, and one that keeps talking ---------
cat > "$T/quiet" <<'EOT'
#!/bin/bash
while [ $# -gt 0 ]; do
	case $1 in -serial) log=${2#file:}; shift ;; esac
	shift
done
echo $$ > "${0%/*}/quiet.pid"
for i in $(seq "${BB_TEST_TALK:-0}"); do echo "line $i" >> "$log"; sleep 0.2; done
[ -n "${BB_TEST_TALK:-}" ] && exit 0
echo "the last line" >> "$log"
# a deadlocked kernel that still takes interrupts: its stall reports
for i in $(seq "${BB_TEST_KMSG:-0}"); do
	printf '[  %d.%06d] watchdog: BUG: soft lockup - CPU#0 stuck for %ds!\r\n' \
		$((100 + i)) $((i * 1000)) "$i" >> "$log"
	sleep 0.2
done
sleep 60
EOT
chmod +x "$T/quiet"
t0=$SECONDS
# (its temporary file in a directory of its own: removed at the end)
mkdir "$T/tmpdir"
TMPDIR=$T/tmpdir "$TOP/scripts/boot.sh" -q "$T/quiet" -t 600 -w 2 "$T/k" "$T/i" "$T/log" 2> /dev/null
rc=$?
[ $rc -eq 124 ] && grep -q '^BB-GUEST-SILENT after 2s$' "$T/log" ||
	{ cat "$T/log"; fail "a silent guest: rc=$rc, not 124 with BB-GUEST-SILENT"; }
[ $((SECONDS - t0)) -lt 30 ] || fail "a silent guest ran $((SECONDS - t0))s, not killed at 2s of silence"
! kill -0 "$(cat "$T/quiet.pid")" 2> /dev/null || fail "the silent guest outlived its launcher"
t0=$SECONDS
BB_TEST_KMSG=250 TMPDIR=$T/tmpdir "$TOP/scripts/boot.sh" -q "$T/quiet" -t 600 -w 2 "$T/k" "$T/i" "$T/log" 2> /dev/null
rc=$?
[ $rc -eq 124 ] && grep -q '^BB-GUEST-SILENT after 2s$' "$T/log" &&
	grep -q 'soft lockup' "$T/log" ||
	{ cat "$T/log"; fail "a guest that prints only kernel reports: rc=$rc, not 124 with BB-GUEST-SILENT"; }
[ $((SECONDS - t0)) -lt 30 ] ||
	fail "a guest that prints only kernel reports ran $((SECONDS - t0))s, not killed at 2s without a line of its user space"
BB_TEST_TALK=25 TMPDIR=$T/tmpdir "$TOP/scripts/boot.sh" -q "$T/quiet" -t 600 -w 2 "$T/k" "$T/i" "$T/log" 2> /dev/null
rc=$?
[ $rc -eq 0 ] && grep -q '^line 25$' "$T/log" && ! grep -q BB-GUEST "$T/log" ||
	{ cat "$T/log"; fail "a guest that prints every 0.2 s for 5 s with -w 2: rc=$rc, not 0"; }
[ -z "$(ls -A "$T/tmpdir")" ] ||
	fail "boot.sh -w left its temporary file behind: $(ls -A "$T/tmpdir")"
expect_fail "-w '0': not a positive number" \
	"$TOP/scripts/boot.sh" -n -w 0 "$T/k" "$T/i" "$T/log"
echo "ok: a guest silent for -w seconds, or with only kernel reports, is killed (124), one whose user space prints is not"
