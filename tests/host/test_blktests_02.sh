#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/blktests-upstream.sh, upstream blktests on base and series:
# bad input is refused with a message before anything is built or
# written (no checkout, not a checkout, an unknown case or group, a bad
# transport or bound, an output directory in use); blktests_verdicts
# reads the guest's console into one line per case and condition:
# ./check's verdicts, conditions and runtimes, the reason of a case or
# group not run, a device case skipped silently, a case that its bound
# ended and those after it, one that printed no verdict, and none of the
# kernel log's lines that the guest adds after a case; blktests_table
# lines up two kernels' verdicts, whichever is missing.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/testlib/parse.sh"

S=$TOP/scripts/blktests-upstream.sh
bt=$T/bt
mkdir -p "$bt/tests/block" "$bt/tests/loop" && : > "$bt/tests/loop/001" &&
	printf '#!/bin/bash\n' > "$bt/check" && chmod +x "$bt/check" ||
	fail "cannot make a fake checkout"
(unset BB_BLKTESTS; expect_fail 'BB_BLKTESTS: name a blktests checkout' "$S" "$T/o")
BB_BLKTESTS=$T expect_fail 'not a blktests checkout' "$S" "$T/o"
export BB_BLKTESTS=$bt
expect_fail "no case 'loop/002' in .* or blktests/tests" "$S" --cases loop/001,loop/002 "$T/o"
expect_fail "no case 'loop'" "$S" --cases loop "$T/o"
expect_fail "no group 'nbd'" "$S" --groups loop,nbd "$T/o"
expect_fail "--transports: loop, tcp or fc, not 'rdma'" "$S" --transports loop,rdma "$T/o"
expect_fail "--case-timeout: seconds" "$S" --case-timeout 0 "$T/o"
expect_fail "--fio-timeout: seconds" "$S" --fio-timeout 1m "$T/o"
expect_fail "--smp: 1 to 8" "$S" --smp 16 "$T/o"
expect_fail 'usage:' "$S"
expect_fail 'usage:' "$S" --bogus "$T/o"
[ ! -e "$T/o" ] || fail "a refused run left $T/o behind"
mkdir -p "$T/used" && : > "$T/used/x"
expect_fail 'exists and is not empty' "$S" --cases loop/001 "$T/used"
[ "$(ls -A "$T/used")" = x ] || fail "a refused run wrote into $T/used"
"$S" --help | grep -q -- '--transports LIST' || fail "--help does not name --transports"

# --- the guest's console, parsed ----------------------------------------------
cat > "$T/log" <<'EOF'
[    1.0] booting
BB-BT-BEGIN kernel 7.3.0-rc7 cases 10
loop/001 (scan loop device partitions)                       [passed]
    runtime  2.1s  ...  3.456s
BB-BT loop/001 rc=0 secs=5 dev=0
nvme/002 (tr=loop) (create many subsystems and test discovery) [not run]
    nvme is not available
    kernel option NVME_TARGET_PASSTHRU has not been enabled
nvme/002 (tr=tcp) (create many subsystems and test discovery) [failed]
    runtime    ...  2.5s
    --- tests/nvme/002.out	2026-11-28
    +++ /blktests/results/nodev_tr_tcp/nvme/002.out.bad
BB-BT nvme/002 rc=1 secs=9 dev=0
throtl/001 (nullb) (basic functionality)                     [failed]
    runtime    ...  4.0s
throtl/001 (sdebug) (basic functionality)                    [passed]
    runtime    ...  5.0s
BB-BT throtl/001 rc=1 secs=12 dev=0
nvme/006 (tr=loop bd=device) (create an NVMeOF target)       [passed]
    runtime    ...  1.5s
block/055 (dm suspend/resume (live-queue quiesce) under writes) [passed]
    runtime    ...  30.0s
BB-BT block/055 rc=0 secs=33 dev=0
block/001 (stress device hotplugging)
BB-BT-KMSG [  600.1] sysrq: Show Blocked State
BB-BT-KMSG     runtime  1.0s  ...  2.0s
BB-BT block/001 rc=124 secs=600 dev=0
zbd/001 (sysfs and ioctl)                                    [passed]
    runtime    ...  1.0s
BB-BT zbd/001 rc=137 secs=900 dev=0
nvme/***                                                     [not run]
    nvme-cli does not support json output
BB-BT nvme/058 rc=0 secs=1 dev=0
BB-BT block/003 rc=0 secs=1 dev=1
BB-BT zbd/002 rc=0 secs=1 dev=0
block/004 => nvme0n1 (run lots of flushes)                   [passed]
    runtime  9.9s  ...  10.2s
block/004 => sda (run lots of flushes)                       [not run]
    device is not rotational
BB-BT block/004 rc=0 secs=12 dev=1
nvme/032 => nvme0n1 (tr=loop) (test nvme pci adapter rescan) [failed]
    runtime    ...  7.5s
BB-BT-TAINT nvme/032 0 512
BB-BT-KMSG [    7.9] WARNING: CPU: 0 PID: 1 at drivers/nvme/host/core.c:1 x+0x1/0x2
BB-BT-KMSG nvme/033 (tr=loop) (a case name in the kernel log) [passed]
BB-BT nvme/032 rc=1 secs=8 dev=1
throtl/006 (nullb) (mkfs on a throttled disk)
BB-BT throtl/006 rc=137 secs=40 dev=0 bound=300
BB-BT throtl/007 rc=137 secs=2 dev=0 bound=300
BB-BT block/005 rc=137 secs=310 dev=0 bound=300
BB-BT block/006 rc=124 secs=300 dev=0 bound=300
BB-BT-END
[    9.0] reboot: Power down
EOF
cat > "$T/want" <<'EOF'
loop/001||passed|3.456||
nvme/002|tr=loop|not run|-|nvme is not available; kernel option NVME_TARGET_PASSTHRU has not been enabled|
nvme/002|tr=tcp|failed|2.5||
throtl/001|nullb|failed|4.0||
throtl/001|sdebug|passed|5.0||
nvme/006|tr=loop bd=device|passed|1.5||
block/055||passed|30.0||
block/001||timeout|600|ended by the case bound, rc 124|
zbd/001||passed|1.0||block/001 timed out
zbd/001||timeout|900|ended by the case bound, rc 137|block/001 timed out
nvme/058||not run|-|nvme-cli does not support json output|zbd/001 timed out
block/003||not run|-|a test_device() case, and TEST_DEVS is empty|zbd/001 timed out
zbd/002||no verdict|1|rc 0|zbd/001 timed out
block/004|nvme0n1|passed|10.2||zbd/001 timed out
block/004|sda|not run|-|device is not rotational|zbd/001 timed out
nvme/032|tr=loop, nvme0n1|failed|7.5||zbd/001 timed out
throtl/006||killed|40|SIGKILL after 40 s, before the case bound of 300 s: the OOM killer or the case, see the log|zbd/001 timed out
throtl/007||killed|2|SIGKILL after 2 s, before the case bound of 300 s: the OOM killer or the case, see the log|throtl/006 was killed
block/005||timeout|310|ended by the case bound, rc 137|throtl/007 was killed
block/006||timeout|300|ended by the case bound, rc 124|block/005 timed out
EOF
blktests_verdicts "$T/log" > "$T/got"
diff -u "$T/want" "$T/got" || fail "blktests_verdicts misread the console"
echo "ok: blktests_verdicts: $(wc -l < "$T/got") lines as expected"

# --- the table of two kernels -------------------------------------------------
printf '%s\n' 'loop/001||passed|3.0||' 'throtl/001|nullb|passed|4.0||' \
	'throtl/001|sdebug|passed|5.0||' 'nvme/002|tr=loop|not run|-|no nvme|' > "$T/b"
printf '%s\n' 'loop/001||passed|3.1||' 'throtl/001|nullb|failed|4.2||' \
	'throtl/001|sdebug|passed|5.1||' 'nvme/002|tr=loop|not run|-|no nvme|' \
	'zbd/001||passed|1.0||block/001 timed out' 'loop/002||passed|2.0||throtl/006 was killed' > "$T/s"
blktests_table "$T/b" "$T/s" > "$T/table"
grep -qxF '| throtl/001 (nullb) | passed | failed | 4.0 | 4.2 | **differs** |' "$T/table" &&
	grep -qxF '| throtl/001 (sdebug) | passed | passed | 5.0 | 5.1 |  |' "$T/table" &&
	grep -qxF '| nvme/002 (tr=loop) | not run | not run | - | - | no nvme |' "$T/table" &&
	grep -qxF '| zbd/001 | absent | passed | - | 1.0 | **differs**; after block/001 timed out on the series |' "$T/table" &&
	grep -qxF '| loop/002 | absent | passed | - | 2.0 | **differs**; after throtl/006 was killed on the series |' "$T/table" ||
	{ cat "$T/table"; fail "blktests_table: wrong rows"; }
: > "$T/empty"
blktests_table "$T/empty" "$T/s" | grep -qxF '| loop/001 | absent | passed | - | 3.1 | **differs** |' ||
	fail "blktests_table: an empty base shifts the columns"
[ "$(blktests_table "$T/b" "$T/s" | grep -cF '**differs**')" -eq 3 ] || fail "blktests_table: not 3 differences"
echo "ok: blktests_table: differences, shared reasons, a missing kernel, rows after a timeout or a kill"
echo "PASS"
