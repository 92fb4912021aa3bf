#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/blktests-upstream.sh, upstream blktests on base and series:
# bad input is refused with a message before anything is built or
# written (no checkout, not a checkout, an unknown case or group, a bad
# transport or bound, an output directory in use); and
# blktests_verdicts reads the guest's console into one line per case and
# condition: ./check's verdicts and runtimes, the reason of a case not
# run, a case that its bound ended, one that printed no verdict.
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
BB-BT-BEGIN kernel 7.3.0-rc7 cases 4
loop/001 (scan loop device partitions)                       [passed]
    runtime  2.1s  ...  3.456s
BB-BT loop/001 rc=0 secs=5
nvme/002 (tr=loop) (create many subsystems and test discovery) [not run]
    nvme is not available
    kernel option NVME_TARGET_PASSTHRU has not been enabled
nvme/002 (tr=tcp) (create many subsystems and test discovery) [failed]
    runtime    ...  2.5s
    --- tests/nvme/002.out	2026-11-28
    +++ /blktests/results/nodev_tr_tcp/nvme/002.out.bad
BB-BT nvme/002 rc=1 secs=9
block/001 (stress device hotplugging)
BB-BT block/001 rc=124 secs=600
zbd/001 (sysfs and ioctl)                                    [passed]
    runtime    ...  1.0s
zbd/001 (sysfs and ioctl)                                    [passed]
BB-BT zbd/001 rc=137 secs=900
BB-BT zbd/002 rc=0 secs=1
BB-BT-END
[    9.0] reboot: Power down
EOF
cat > "$T/want" <<'EOF'
loop/001||passed|3.456|
nvme/002|tr=loop|not run|-|nvme is not available; kernel option NVME_TARGET_PASSTHRU has not been enabled
nvme/002|tr=tcp|failed|2.5|
block/001||timeout|600|ended by the case bound, rc 124
zbd/001||passed|1.0|
zbd/001||passed|-|
zbd/001||timeout|900|ended by the case bound, rc 137
zbd/002||no verdict|1|rc 0
EOF
blktests_verdicts "$T/log" > "$T/got"
diff -u "$T/want" "$T/got" || fail "blktests_verdicts misread the console"
echo "ok: blktests_verdicts: $(wc -l < "$T/got") lines as expected"
echo "PASS"
