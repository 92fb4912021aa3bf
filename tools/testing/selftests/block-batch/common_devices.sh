# SPDX-License-Identifier: GPL-2.0
#
# Devices the tests make and use: null_blk, I/O schedulers, ublk
# (kublk), scsi_debug, request-based dm-multipath and NVMe scratch disks.
# Sourced by test_common.sh.

_require_null_blk() {
	[ -d "$BB_NULLB_CFS" ] && return 0
	if [ -d /sys/kernel/config ] &&
	   ! grep -q ' /sys/kernel/config configfs ' /proc/mounts; then
		mount -t configfs none /sys/kernel/config 2>/dev/null
	fi
	[ -d "$BB_NULLB_CFS" ] || modprobe null_blk nr_devices=0 2>/dev/null
	[ -d "$BB_NULLB_CFS" ] ||
		_skip "null_blk configfs is not available" \
		      "(CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)"
}

# _sched_available DEV SCHED
_sched_available() {
	[ "$2" = none ] && return 0
	grep -qw -- "$2" "/sys/block/$1/queue/scheduler"
}

# _require_sched DEV SCHED -- SCHED can be selected on DEV: built in, or
#   its module loaded now (the kernel registers schedulers as modules
#   "SCHED-iosched": a distro kernel has bfq as a module, and queue/scheduler
#   lists only registered ones).  If it cannot be had, the reason becomes a
#   SKIP reason of the test (never a silent pass) and it returns 1.
_require_sched() {
	local dev=$1 sched=$2

	_sched_available "$dev" "$sched" && return 0
	_have_program modprobe && modprobe -q "$sched-iosched" 2>/dev/null
	_sched_available "$dev" "$sched" && return 0
	_skip_later "$sched is not available (not built in, 'modprobe $sched-iosched' failed)"
	return 1
}

# _sched_is DEV SCHED -- whether SCHED is DEV's scheduler now
_sched_is() {
	grep -q "\[$2\]" "/sys/block/$1/queue/scheduler"
}

# _set_sched DEV SCHED -- switch and check that the switch took effect
_set_sched() {
	local dev=$1 sched=$2

	echo "$sched" > "/sys/block/$dev/queue/scheduler" || return 1
	_sched_is "$dev" "$sched"
}

# _nullb_create NAME [attr=value]...
#   Create a null_blk device through configfs; its disk is /dev/NAME (null_blk
#   names configfs devices after their directory).  Not in a subshell: the
#   device is remembered for _cleanup_test.
#   Defaults: memory backed, 4k blocks, 256 MiB, one submit queue per CPU.
_nullb_create() {
	local name=$1 dir kv
	shift

	dir=$BB_NULLB_CFS/$name
	mkdir "$dir" || return 1
	BB_NULLB_NAMES+=("$name")
	for kv in memory_backed=1 blocksize=4096 size=256 \
		  submit_queues="$(nproc)" hw_queue_depth=64 irqmode=0 "$@"; do
		if ! echo "${kv#*=}" > "$dir/${kv%%=*}"; then
			echo "# $TID: null_blk $name: cannot set ${kv}" >&2
			return 1
		fi
	done
	echo 1 > "$dir/power" || return 1
	[ -b "/dev/$name" ] && [ -d "/sys/block/$name" ]
}

# _nullb_destroy NAME -- power off and remove null_blk NAME, and forget it:
#   _cleanup_test no longer removes it
_nullb_destroy() {
	local name=$1 n keep=()

	for n in "${BB_NULLB_NAMES[@]}"; do
		[ "$n" = "$name" ] || keep+=("$n")
	done
	BB_NULLB_NAMES=("${keep[@]}")
	[ -d "$BB_NULLB_CFS/$name" ] || return 0
	echo 0 > "$BB_NULLB_CFS/$name/power" 2>/dev/null
	rmdir "$BB_NULLB_CFS/$name"
}

# kublk is built by tools/testing/selftests/ublk (it needs liburing 2.4 or
# later); installed, it sits next to this directory, as ../ublk/kublk.
BB_KUBLK=${BB_KUBLK:-$(cd "$(dirname "$0")" && pwd)/../ublk/kublk}

# _require_kublk [FEATURE]... -- kublk and /dev/ublk-control, and the ublk
#   driver's FEATUREs, as "kublk features" names them (UBLK_F_QUIESCE)
_require_kublk() {
	local f feats

	[ -x "$BB_KUBLK" ] ||
		_skip "no kublk at $BB_KUBLK (build tools/testing/selftests/ublk:" \
		      "it needs liburing 2.4 or later)"
	[ -c /dev/ublk-control ] || modprobe ublk_drv 2>/dev/null
	[ -c /dev/ublk-control ] ||
		_skip "no /dev/ublk-control (CONFIG_BLK_DEV_UBLK, 'modprobe ublk_drv' failed)"
	feats=$("$BB_KUBLK" features 2>/dev/null)
	for f in "$@"; do
		echo "$feats" | grep -qw "$f" ||
			_skip "the ublk driver lacks feature $f ('kublk features')"
	done
}

# _ublk_add ARG... -- "kublk add ARG...": the new device's id on stdout,
#   and in $BB_TMP/ublk.ids, for _cleanup_test (callers run it in a
#   command substitution, whose variables do not come back)
_ublk_add() {
	local out id

	out=$("$BB_KUBLK" add "$@" 2>&1) || { echo "$out" >&2; return 1; }
	id=$(echo "$out" | sed -n 's/^dev id \([0-9]*\):.*/\1/p' | head -n1)
	[ -n "$id" ] || { echo "$out" >&2; return 1; }
	echo "$id" >> "$BB_TMP/ublk.ids"
	echo "$id"
}

# _ublk_field ID state|pid -- the device's state (LIVE, QUIESCED, ...) or
#   its server's pid, from "kublk list"
_ublk_field() {
	# bounded: a control command stuck in the kernel must not hold the
	# caller (_ublk_wait_state's stall window) with it
	case $2 in
	state) timeout -k 2 10 "$BB_KUBLK" list -n "$1" 2>/dev/null |
	       sed -n 's/.* state \([A-Z_]*\).*/\1/p' ;;
	pid) timeout -k 2 10 "$BB_KUBLK" list -n "$1" 2>/dev/null |
	     sed -n 's/.* daemon pid \(-\{0,1\}[0-9]*\) .*/\1/p' ;;
	esac
}

# _ublk_wait_state ID STATE -- wait until the device is in STATE.  A state
#   change is a control command's work, which the watchdog's I/O counts do
#   not see; so a state that has not changed for BB_STALL_SECS, the window
#   the watchdog gives I/O, is a stall here too: reported as one, with the
#   dump, so that the test says "stalled" and not why it stopped waiting.
_ublk_wait_state() {
	local st last='' t_st

	t_st=$(_now)
	while :; do
		st=$(_ublk_field "$1" state)
		[ "$st" = "$2" ] && return 0
		_stalled && break
		[ "$st" != "$last" ] && last=$st t_st=$(_now)
		if [ $(($(_now) - t_st)) -ge "$BB_STALL_SECS" ]; then
			echo "ublk $1 in state ${st:-unknown} for $BB_STALL_SECS s," \
			     "waiting for $2" > "$BB_STALL_FILE"
			_stall_dump_bounded "ublkb$1"
			break
		fi
		sleep 0.1
	done
	echo "# $TID: ublk $1: state ${st:-unknown}, not $2" >&2
	return 1
}

_ublk_del_all() {
	local id out

	[ -f "${BB_TMP:-}/ublk.ids" ] || return 0
	while read -r id; do
		out=$("$BB_KUBLK" del -n "$id" 2>&1) && continue
		echo "$out" | sed 's/^/# /'
		_fail "cannot delete ublk device $id"
	done < "$BB_TMP/ublk.ids"
	rm -f "$BB_TMP/ublk.ids"
}

# _scsi_host DEV -- /sys/class/scsi_host/hostN of SCSI disk DEV
_scsi_host() {
	local sdev

	sdev=$(basename "$(readlink -f "/sys/block/$1/device")") || return 1
	[ -d "/sys/class/scsi_host/host${sdev%%:*}" ] || return 1
	echo "/sys/class/scsi_host/host${sdev%%:*}"
}

# _sdebug_create KEY=VALUE... -- one scsi_debug host with one target and one
#   LUN, given these scsi_debug parameters: loads the module with them, or,
#   when scsi_debug is built in with no host (the guest's command line has
#   scsi_debug.add_host=0), sets them and adds a host.  Sets BB_SDEBUG_DEV to
#   the new disk's name.  Returns 1 with the reason in BB_SDEBUG_WHY.
#   _sdebug_remove undoes it, parameters included.
_sdebug_create() {
	local sd=/sys/bus/pseudo/drivers/scsi_debug mp=/sys/module/scsi_debug/parameters
	local kv d

	BB_SDEBUG_DEV='' BB_SDEBUG_HOW='' BB_SDEBUG_OLD=()
	# read by the tests
	export BB_SDEBUG_WHY=''
	if [ ! -d $sd ]; then
		_have_program modprobe &&
			modprobe -q scsi_debug add_host=1 num_tgts=1 max_luns=1 \
				"$@" 2>/dev/null
		if [ ! -d $sd ]; then
			BB_SDEBUG_WHY="scsi_debug is not available (CONFIG_SCSI_DEBUG=m)"
			return 1
		fi
		BB_SDEBUG_HOW=module
	elif [ -z "$(ls -d $sd/adapter* 2>/dev/null)" ]; then
		BB_SDEBUG_HOW=host
		for kv in num_tgts=1 max_luns=1 "$@"; do
			BB_SDEBUG_OLD+=("${kv%%=*}=$(cat "$mp/${kv%%=*}" 2>/dev/null)")
			if ! echo "${kv#*=}" > "$mp/${kv%%=*}"; then
				BB_SDEBUG_WHY="cannot set scsi_debug's ${kv%%=*}"
				_sdebug_remove
				return 1
			fi
		done
		if ! echo 1 > $sd/add_host; then
			BB_SDEBUG_WHY="cannot add a scsi_debug host"
			_sdebug_remove
			return 1
		fi
	else
		BB_SDEBUG_WHY="scsi_debug is already in use here"
		return 1
	fi
	# sd probes the new disk asynchronously
	for _ in $(seq 100); do
		for d in $sd/adapter*/host*/target*/*/block/*; do
			[ -d "$d" ] && BB_SDEBUG_DEV=${d##*/} && break
		done
		[ -n "$BB_SDEBUG_DEV" ] && [ -b "/dev/$BB_SDEBUG_DEV" ] && return 0
		sleep 0.1
	done
	BB_SDEBUG_WHY="scsi_debug made no disk"
	_sdebug_remove
	return 1
}

# _sdebug_remove -- remove what _sdebug_create made, and turn off the error
#   injection (opts, every_nth) that a test set
_sdebug_remove() {
	local sd=/sys/bus/pseudo/drivers/scsi_debug kv

	echo 0 > $sd/every_nth 2>/dev/null
	echo 0 > $sd/opts 2>/dev/null
	case ${BB_SDEBUG_HOW:-} in
	module) modprobe -r scsi_debug 2>/dev/null ;;
	host)
		echo -1 > $sd/add_host 2>/dev/null
		for kv in "${BB_SDEBUG_OLD[@]}"; do
			echo "${kv#*=}" > "/sys/module/scsi_debug/parameters/${kv%%=*}" 2>/dev/null
		done ;;
	esac
	BB_SDEBUG_HOW='' BB_SDEBUG_DEV=''
}

# A request-based dm device has a blk-mq queue of its own (drivers/md/dm-rq.c)
# that dm suspend quiesces and resume unquiesces, with no freeze around.
BB_DM_NAMES=()

# _dm_multipath_why -- prints why dm-multipath cannot be used here (and
#   returns 0), or nothing (and returns 1); loads its module if needed
_dm_multipath_why() {
	_have_program dmsetup || { echo "dmsetup is not installed"; return 0; }
	_have_program modprobe && modprobe -q dm-multipath 2>/dev/null
	dmsetup targets > /dev/null 2>&1 ||
		{ echo "device-mapper is not available (CONFIG_BLK_DEV_DM)"; return 0; }
	dmsetup targets | grep -q '^multipath[[:space:]]' && return 1
	echo "the dm multipath target is not available (CONFIG_DM_MULTIPATH)"
}

# _require_dm_multipath -- device-mapper with the multipath target
_require_dm_multipath() {
	local why

	why=$(_dm_multipath_why) && _skip "$why"
}

# _devt DEV -- DEV's dev_t as the block tracepoints' dev field holds it
#   (the kernel's MKDEV: major << 20 | minor), for event filters
_devt() {
	local major minor

	IFS=: read -r major minor < "/sys/block/$1/dev" || return 1
	echo $(((major << 20) | minor))
}

# _dmsetup ARG... -- dmsetup without udev synchronisation (the guest has no
# udev); its output is shown only if it fails
_dmsetup() {
	dmsetup --noudevsync "$@" > "$BB_TMP/dmsetup.log" 2>&1 && return 0
	echo "# $TID: dmsetup $* failed:"
	sed 's/^/#   /' "$BB_TMP/dmsetup.log"
	return 1
}

# _mpath_create NAME PATHDEV -- dm device NAME: a multipath table with no
#   features, no hardware handler, one priority group with the round-robin
#   selector and one path, block device PATHDEV, repeat_count 1.  Sets
#   BB_DM_DEV to its dm-N.  Not in a subshell (remembered for cleanup).
_mpath_create() {
	local name=$1 path=$2 d table

	table="0 $(cat "/sys/block/$path/size") multipath 0 0 1 1"
	table+=" round-robin 0 1 1 $(cat "/sys/block/$path/dev") 1"
	BB_DM_NAMES+=("$name")
	BB_DM_DEV=
	_dmsetup create "$name" --table "$table" || return 1
	for d in /sys/block/dm-*; do
		[ "$(cat "$d/dm/name" 2>/dev/null)" = "$name" ] && BB_DM_DEV=${d##*/}
	done
	[ -n "$BB_DM_DEV" ] && [ -b "/dev/$BB_DM_DEV" ]
}

# _mpath_on_null_blk NB MP [PARAM]... -- a null_blk NB (not memory backed,
#   2 submit queues, 32 tags, then PARAMs) and a dm-multipath device MP
#   with NB as its one path (_mpath_create: BB_DM_DEV is its dm-N), or
#   skip.  Not memory backed: a memory-backed null_blk is
#   BLK_MQ_F_BLOCKING, and request-based dm issues its clones from a
#   non-blocking dispatch context (blk_insert_cloned_request() inside the
#   dm queue's RCU read section), a "sleeping function called from invalid
#   context" in v7.3.  So the tests write without verify: a lost request
#   shows as a stall, not as bad data.
_mpath_on_null_blk() {
	local nb=$1 mp=$2

	shift 2
	_nullb_create "$nb" memory_backed=0 submit_queues=2 hw_queue_depth=32 \
		"$@" || _skip "cannot create a null_blk device"
	_mpath_create "$mp" "$nb" ||
		_skip "cannot create a dm-multipath device on $nb"
	_log "$mp is $BB_DM_DEV: $(dmsetup table "$mp")"
}

# _mpath_remove NAME -- resume (a suspended device's queue stays quiesced,
#   and del_gendisk() would wait for its requests) and remove
_mpath_remove() {
	dmsetup info "$1" > /dev/null 2>&1 || return 0
	_dmsetup resume "$1" && _dmsetup remove --retry "$1"
}

# _disk_in_use DISK -- why DISK (or a partition of it) must not be touched
#   (mounted, swap, held by dm, md...): prints the reason; false if unused.
#   Mounts are matched by device number (/proc/self/mountinfo), so a root
#   file system listed as /dev/root is found too.
_disk_in_use() {
	local b part devno

	for part in "/sys/block/$1" "/sys/block/$1/$1"*; do
		[ -d "$part" ] || continue
		b=$(basename "$part")
		devno=$(cat "$part/dev" 2>/dev/null)
		if [ -n "$devno" ] &&
		   awk -v d="$devno" '$3 == d { f = 1 } END { exit !f }' /proc/self/mountinfo; then
			echo "/dev/$b is mounted"; return 0
		fi
		if grep -q "^/dev/$b " /proc/mounts; then
			echo "/dev/$b is mounted"; return 0
		fi
		if grep -q "^/dev/$b " /proc/swaps 2>/dev/null; then
			echo "/dev/$b is used as swap"; return 0
		fi
		if [ -n "$(ls "$part/holders" 2>/dev/null)" ]; then
			echo "/dev/$b is held by $(ls "$part/holders" | tr '\n' ' ')"
			return 0
		fi
	done
	return 1
}

# _require_unused_disk DISK -- skip unless DISK is a whole disk that
#   _disk_in_use finds unused: a test may destroy its data
_require_unused_disk() {
	local why

	[ -b "/dev/$1" ] && [ -d "/sys/block/$1" ] || _skip "$1 is not a disk"
	why=$(_disk_in_use "$1") && _skip "refusing $1: $why"
}

# _nvme_ns_ctrls NS -- the controller(s) of NVMe namespace block device
#   NS: its own device link, or with native multipath the controllers of
#   its hidden nvmeXcYnZ paths
_nvme_ns_ctrls() {
	local p

	if [ -d "/sys/block/$1/multipath" ]; then
		for p in "/sys/block/$1/multipath"/*; do
			[ -e "$p/device" ] && basename "$(readlink -f "$p/device")"
		done
	elif [ -e "/sys/block/$1/device" ]; then
		basename "$(readlink -f "/sys/block/$1/device")"
	fi
}
