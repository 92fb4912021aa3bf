#!/bin/bash
# test_poll_02 as the kselftest runs it, then the workload repeated with
# the request timeouts counted
cd /kselftest/block-batch
./test_poll_02.sh > /tmp/t.log 2>&1
echo "POLLX test_poll_02 rc=$?"
sed 's/^/POLLX t2 /' /tmp/t.log | grep -v "^POLLX t2 #   " | head -30
bash /extra/workload-run.sh
