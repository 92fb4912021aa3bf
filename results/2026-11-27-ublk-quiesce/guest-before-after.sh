#!/bin/bash
# test_recover_05 with kublk before and after its fix (without the fix
# only on a v7.3-rc7 guest: /extra/kublk-unfixed)
modprobe -q ublk_drv
if [ -x /extra/kublk-unfixed ] && grep -q unfixed /proc/cmdline; then
	cp -a /kselftest/ublk /tmp/ublk-unfixed && cp /extra/kublk-unfixed /tmp/ublk-unfixed/kublk
	cd /tmp/ublk-unfixed && timeout 400 ./test_recover_05.sh; echo "UQ kublk-unfixed test_recover_05 rc=$?"
fi
cd /kselftest/ublk || exit 1
for t in test_recover_05 test_recover_05 test_recover_05; do
	s=$SECONDS; timeout 400 ./$t.sh; echo "UQ kublk-fixed $t rc=$? secs=$((SECONDS - s))"
done
