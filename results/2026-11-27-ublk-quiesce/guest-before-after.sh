#!/bin/bash
# test_recover_05 with kublk before and after its fix, then the fixed
# kublk through the recover group's kill cases and a generic case.
modprobe -q ublk_drv
cp -a /kselftest/ublk /tmp/ublk-unfixed && cp /extra/kublk-unfixed /tmp/ublk-unfixed/kublk
cd /tmp/ublk-unfixed && timeout 400 ./test_recover_05.sh; echo "UQ kublk-unfixed test_recover_05 rc=$?"
cd /kselftest/ublk || exit 1
for t in test_recover_05 test_recover_05 test_recover_05 test_recover_01 test_recover_02 test_generic_02; do
	s=$SECONDS; timeout 400 ./$t.sh; echo "UQ kublk-fixed $t rc=$? secs=$((SECONDS - s))"
done
