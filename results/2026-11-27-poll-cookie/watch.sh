watch() {
	# every 0.5 s a sample of the fio threads' stacks; when null_blk
	# reports a new timed-out request, print the sample taken before it
	local t c n0 n1
	n0=$(dmesg | grep -c 'null_blk: rq')
	while :; do
		for t in /proc/[0-9]*/task/[0-9]*; do
			c=$(cat $t/comm 2>/dev/null)
			case $c in fio|iou-*) ;; *) continue;; esac
			echo "$t $c state=$(awk '/^State/{print $2}' $t/status 2>/dev/null)"
			sed 's/^/  /' $t/stack 2>/dev/null
		done > /tmp/sample.new
		n1=$(dmesg | grep -c 'null_blk: rq')
		if [ "$n1" -gt "$n0" ]; then
			echo "POLLX hang-sample at $(cut -d' ' -f1 /proc/uptime), before timeout $n1"
			sed 's/^/POLLX   /' /tmp/sample.old
			n0=$n1
		fi
		mv /tmp/sample.new /tmp/sample.old
		sleep 0.5
	done
}
