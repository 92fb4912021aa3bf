#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Common helpers for the block-batch selftests.  Modelled on the ublk
# selftests: source this file, declare requirements with _require_*, set up
# with _prep_test, tear down with _cleanup_test and report with _show_result.

# test_<group>_<NN>.sh -> <group>_<NN>
TID=$(basename "$0" .sh)
TID=${TID#test_}

BB_SKIP_CODE=4
BB_SCHEDULERS=${BB_SCHEDULERS:-"none mq-deadline bfq kyber"}
BB_NULLB_CFS=/sys/kernel/config/nullb
BB_DEBUGFS=/sys/kernel/debug/block
BB_TRACEFS=/sys/kernel/tracing
BB_NULLB_NAMES=()

_log() {
	echo "# $TID: $*"
}

# _skip REASON -- skip the whole test, like blktests' SKIP_REASONS
_skip() {
	echo "# $TID: SKIP: $*"
	_cleanup_test
	echo "$TID : [SKIP]"
	exit "$BB_SKIP_CODE"
}

_fail() {
	echo "# $TID: FAIL: $*"
	BB_ERR=1
}

_have_program() {
	command -v "$1" >/dev/null 2>&1
}

_require_root() {
	[ "$(id -u)" -eq 0 ] || _skip "must run as root"
}

_require_program() {
	_have_program "$1" || _skip "$1 is not installed"
}

# _require_fio_engine ENGINE
_require_fio_engine() {
	fio --enghelp 2>/dev/null | grep -qw "$1" ||
		_skip "fio has no $1 ioengine"
}

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

_require_debugfs() {
	[ -d /sys/kernel/debug/block ] && return 0
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -d /sys/kernel/debug/block ] ||
		_skip "block debugfs is not available (CONFIG_BLK_DEBUG_FS)"
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

_nullb_destroy() {
	local name=$1

	[ -d "$BB_NULLB_CFS/$name" ] || return 0
	echo 0 > "$BB_NULLB_CFS/$name/power" 2>/dev/null
	rmdir "$BB_NULLB_CFS/$name"
}

# --- ublk: kublk, the ublk server of the kernel's own ublk selftests ----
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

# --- tags, requests and budgets held by an idle queue --------------------
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

# _busy_sum FILE -- sum of the "busy=" lines of a debugfs tags file
_busy_sum() {
	awk -F= '/^busy=/ { s += $2 } END { print s + 0 }' "$1" 2>/dev/null
}

# _tags_idle DEV -- check that DEV holds no tag, request or budget.  Prints
# what is wrong to $BB_TMP/idle.DEV and the counts checked to
# $BB_TMP/counts.DEV ("hctxs tagfiles schedfiles nr_tags").
_tags_idle() {
	local dev=$1 h f kind c nh=0 nt=0 ns=0 nr_tags='?' bad=0 r w
	local out=$BB_TMP/idle.$dev

	: > "$out"
	# debugfs files have size 0: read them, do not test -s.
	for h in "$BB_DEBUGFS/$dev"/hctx*; do
		[ -d "$h" ] || continue
		nh=$((nh + 1))
		for kind in tags sched_tags; do
			c=$(cat "$h/$kind" 2>/dev/null)
			[ -n "$c" ] || continue
			if ! echo "$c" | grep -q '^busy='; then
				echo "${h##*/}/$kind: no busy= line" >> "$out"
				bad=1
				continue
			fi
			if [ "$kind" = tags ]; then
				nt=$((nt + 1))
				nr_tags=$(echo "$c" | sed -n 's/^nr_tags=//p')
			else
				ns=$((ns + 1))
			fi
			if echo "$c" | grep '^busy=' | grep -qv '^busy=0$'; then
				c=$(echo "$c" | grep '^busy=' | tr '\n' ' ')
				echo "${h##*/}/$kind: $c" >> "$out"
				bad=1
			fi
		done
		for f in "$h/busy" "$h/dispatch" "$h"/cpu*/*_rq_list; do
			[ -e "$f" ] || continue
			c=$(head -n 3 "$f")
			[ -z "$c" ] && continue
			echo "${f#"$BB_DEBUGFS/$dev/"}: $(echo "$c" | tr '\n' ' ')" >> "$out"
			bad=1
		done
		c=$(cat "$h/active" 2>/dev/null)
		if [ -n "$c" ] && [ "$c" != 0 ]; then
			echo "${h##*/}/active: $c" >> "$out"
			bad=1
		fi
	done
	read -r r w < "/sys/block/$dev/inflight"
	if [ "$r" != 0 ] || [ "$w" != 0 ]; then
		echo "inflight: $r $w" >> "$out"
		bad=1
	fi
	# A SCSI disk: its dispatch budgets and its host's tags are back too.
	for f in "/sys/block/$dev/device/device_busy" \
		 "$(_scsi_host "$dev" 2>/dev/null)/host_busy"; do
		[ -f "$f" ] || continue
		c=$(cat "$f")
		[ "$c" = 0 ] && continue
		echo "${f#/sys/}: $c" >> "$out"
		bad=1
	done
	if [ $nh -eq 0 ] || [ $nt -eq 0 ]; then
		echo "no hctx tags files under $BB_DEBUGFS/$dev" >> "$out"
		bad=1
	fi
	echo "$nh $nt $ns $nr_tags" > "$BB_TMP/counts.$dev"
	return $bad
}

# _check_idle SCHED DEV... -- after fio: every tag of every DEV is back
#   (_tags_idle), and for a SCSI disk every dispatch budget and host tag
#   (device_busy, host_busy).
#   A tag is freed right after the completion that fio waits for: allow
#   two more looks a second apart before calling it a leak.
_check_idle() {
	local sched=$1 dev try nh nt ns nr ok
	shift

	for dev in "$@"; do
		ok=0
		for try in 1 2 3; do
			if _tags_idle "$dev"; then
				ok=1
				break
			fi
			[ $try -lt 3 ] && sleep 1
		done
		read -r nh nt ns nr < "$BB_TMP/counts.$dev"
		if [ $ok -eq 0 ]; then
			sed 's/^/#   /' "$BB_TMP/idle.$dev"
			_fail "$sched: $dev holds tags or requests while idle"
			continue
		fi
		if [ "$sched" != none ] && [ "$ns" -ne "$nh" ]; then
			_fail "$sched: $dev: $ns sched_tags files for $nh hctxs"
			continue
		fi
		_log "$sched: $dev idle after $try check(s): $nh hctxs, $nt tags" \
		     "+ $ns sched_tags files all busy=0 (nr_tags=$nr)," \
		     "dispatch/busy/ctx lists empty, active 0, inflight 0 0" \
		     "$([ -f "/sys/block/$dev/device/device_busy" ] &&
			echo ", SCSI device_busy 0, host_busy 0")"
	done
}

# --- request-based device-mapper: dm-multipath over one path -------------
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

# _kprobes_add GROUP PROBE... -- each PROBE ("NAME FUNCTION [FETCHARGS]") as
#   the kprobe event GROUP/NAME, or with "r:NAME FUNCTION" as a return probe;
#   if one cannot be added, prints its function and returns 1
_kprobes_add() {
	local group=$1 p t

	shift
	for p in "$@"; do
		t=p
		case $p in r:*) t=r p=${p#r:} ;; esac
		if ! echo "$t:$group/$p" >> "$BB_TRACEFS/kprobe_events" 2>/dev/null; then
			p=${p#* }
			echo "${p%% *}"
			return 1
		fi
	done
}

# _kprobes_del GROUP PROBE... -- the kprobe events of _kprobes_add disabled
#   and gone; quiet about those that are not there
_kprobes_del() {
	local group=$1 p

	shift
	[ -d "$BB_TRACEFS/events/$group" ] &&
		echo 0 > "$BB_TRACEFS/events/$group/enable"
	for p in "$@"; do
		p=${p#r:}
		echo "-:$group/${p%% *}" >> "$BB_TRACEFS/kprobe_events" 2>/dev/null
	done
	return 0
}

# _trace_buf_kb -- the ring buffer's size per CPU in KiB (buffer_size_kb
#   reads "N", or "N (expanded: M)" before the buffer is first used: M)
_trace_buf_kb() {
	sed -E 's/.*expanded: ([0-9]+).*/\1/; s/[^0-9].*//' "$BB_TRACEFS/buffer_size_kb"
}

# _trace_lost -- events the ring buffer lost since it was last cleared: it
#   overran, or dropped events when not overwriting
_trace_lost() {
	cat "$BB_TRACEFS"/per_cpu/cpu*/stats 2>/dev/null |
		awk '$1 == "overrun:" { o += $2 }
		     $1 == "dropped" && $2 == "events:" { o += $3 }
		     END { print o + 0 }'
}

# _require_trace_event SYSTEM/EVENT -- tracefs with that event, and no one
#   else tracing (do not take the ring buffer away from them)
_require_trace_event() {
	[ -d "$BB_TRACEFS/events" ] ||
		mount -t tracefs nodev "$BB_TRACEFS" 2>/dev/null
	[ -d "$BB_TRACEFS/events/$1" ] ||
		_skip "tracefs or the ${1%%/*}:${1#*/} event is not available"
	[ "$(cat "$BB_TRACEFS/tracing_on")" = 0 ] ||
		[ -z "$(grep -v '^#' "$BB_TRACEFS/set_event" 2>/dev/null)" ] ||
		_skip "tracefs is in use"
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

# _scratch_nvme -- the NVMe namespaces a test may destroy: those whose
#   first controller is QEMU's ("QEMU NVMe Ctrl") with serial "bbnvme"
#   (the scratch drive a test VM gets from QEMU's
#   -device nvme,serial=bbnvme), never a VM's own disk
_scratch_nvme() {
	local b c

	for b in /sys/block/nvme*n*; do
		[ -e "$b" ] || continue
		b=${b##*/}
		case $b in nvme*c*n*) continue ;; esac
		c=$(_nvme_ns_ctrls "$b" | head -n1)
		grep -q "QEMU NVMe Ctrl" "/sys/class/nvme/$c/model" 2>/dev/null &&
		grep -q "^bbnvme" "/sys/class/nvme/$c/serial" 2>/dev/null &&
			echo "$b"
	done
}

# _sched_switch_loop NAME MAX DEV SCHED... -- a stress loop (run it with
#   _stress_spawn): switch DEV round the schedulers SCHED..., at most MAX
#   switches or until the stress bounds say stop
_sched_switch_loop() {
	local name=$1 max=$2 dev=$3 s

	shift 3
	_stress_begin "$name" "$max"
	while _stress_continue; do
		for s in "$@"; do
			_stress_step "$(_inflight_soon "$dev")"
			_set_sched "$dev" "$s" ||
				{ echo "# $TID: switch $dev to $s failed"; return 1; }
		done
	done
	_stress_end
}

# _fio_verify DEV ENGINE [fio option]...
#   Several jobs write disjoint ranges with crc32c verify, then read back.
#   fio runs in the background and is waited for with _wait_pid, so that a
#   stalled fio (see _watchdog_start) never blocks the test itself.
_fio_verify() {
	local dev=$1 engine=$2 rc
	shift 2

	fio --name=bb-verify --filename="/dev/$dev" --ioengine="$engine" \
		--direct=1 --rw=randwrite --bs=4k --iodepth=16 \
		--numjobs=4 --size=32M --offset_increment=32M \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 --group_reporting "$@" \
		> "$BB_TMP/fio.$dev.log" 2>&1 &
	_wait_pid $!
	_fio_ok $? "$BB_TMP/fio.$dev.log"
}

# _fio_ok RC LOG -- fio exited with RC and wrote LOG: true when it ran
#   clean (status 0, no verify mismatch), else false after the log's tail
#   (left out after a stall, whose dump says more)
_fio_ok() {
	[ "$1" -eq 0 ] && ! grep -q 'verify: bad' "$2" && return 0
	_stalled || sed 's/^/#   /' "$2" | tail -n 20
	return 1
}

# _integrity_test ENGINE -- fio write+verify through each scheduler in turn
_integrity_test() {
	local engine=$1 dev sched ran=0

	_require_root
	_require_program fio
	_require_fio_engine "$engine"
	_require_null_blk
	_prep_test "write+verify, $engine, schedulers: $BB_SCHEDULERS"

	dev=bb_$TID
	_nullb_create "$dev" || _skip "cannot create a null_blk device"
	_watchdog_start "$dev"
	for sched in $BB_SCHEDULERS; do
		_require_sched "$dev" "$sched" || continue
		if ! _set_sched "$dev" "$sched"; then
			_fail "cannot select $sched"
			continue
		fi
		# 4 jobs x 8 MiB: bounded work, so that a loaded machine
		# stays well inside the runner's timeout (32 MiB each took
		# over 600 s for four schedulers in a test VM whose host ran
		# two CPU hogs and a kernel build beside it)
		if _fio_verify "$dev" "$engine" --size=8M --offset_increment=8M; then
			_log "$sched: ok"
			ran=$((ran + 1))
		else
			_fail_io "$sched: fio write+verify failed"
			break
		fi
	done
	_watchdog_stop
	_show_result
}

# --- bounded stress, progress, and the stall watchdog ----------------------
#
# A verdict must not depend on how loaded the machine is.  So:
#  - every stress loop is bounded by a count of cycles AND a time budget
#    (BB_STRESS_SECS), whichever ends first, and reports how many cycles it
#    completed and how many of them started with requests in flight;
#  - too few cycles to mean anything is a SKIP that names the figure, never a
#    pass (_stress_verdict); each test's minimum is a tenth or less of
#    what an idle 2-vCPU TCG guest completes in the budget (measured:
#    quiesce_01 fell from 158 to 47 cycles with two CPU hogs, a kernel
#    build and a second guest on the host, and to 16 with three guests);
#  - a hang is told from slowness by progress, not by wall time: the watchdog
#    (_watchdog_start) fails the test as "stalled" only when neither I/O
#    completions nor stress cycles have moved for BB_STALL_SECS, and dumps
#    the evidence (blocked tasks, hctx state, dispatch lists, busy tags);
#  - every budget plus the stall window stays well inside the runner's
#    timeout (settings), so the runner's kill is never the verdict.
BB_STRESS_SECS=${BB_STRESS_SECS:-60}	# time budget of one stress loop
BB_STRESS_MAX=${BB_STRESS_MAX:-}	# if set, at most this many cycles per loop
BB_STALL_SECS=${BB_STALL_SECS:-90}	# no progress for this long: a hang
BB_WATCH_SECS=${BB_WATCH_SECS:-2}	# watchdog poll interval
BB_PROGRESS_SECS=${BB_PROGRESS_SECS:-30}	# progress line interval
BB_SKIP_REASONS=()

# _skip_later REASON -- the test goes on, but its verdict becomes SKIP
#   (unless something fails), with REASON: it could not check what it is for.
_skip_later() {
	_log "$*"
	BB_SKIP_REASONS+=("$*")
}

# _skip_if_untested N REASON -- N things were tested; if none, and nothing
#   failed or gave a skip reason of its own, the test is a SKIP with REASON
_skip_if_untested() {
	[ "$1" -gt 0 ] || [ "$BB_ERR" -ne 0 ] || [ ${#BB_SKIP_REASONS[@]} -gt 0 ] ||
		_skip "$2"
}

# _too_slow REASON -- the test ran, but too little to mean anything
_too_slow() {
	_skip_later "machine too slow: $*"
}

# _now -- seconds since boot (monotonic, unlike date)
_now() {
	local up
	read -r up _ < /proc/uptime
	echo "${up%.*}"
}

# _inflight DEV -- requests of DEV accounted in flight (/sys/block/DEV/stat
#   field 9: from blk_account_io_start() to completion, so requests waiting
#   in the scheduler or on a dispatch list count too)
_inflight() {
	local f
	[ -r "/sys/block/$1/stat" ] && read -ra f < "/sys/block/$1/stat" ||
		{ echo 0; return; }
	echo "${f[8]:-0}"
}

# _inflight_soon DEV -- like _inflight, but waits up to 2 s for requests to
#   be in flight: a stress cycle then starts while fio has I/O outstanding
#   whenever fio runs, instead of only when a single sample lands on it
#   (on a loaded machine fio's gaps are long: one run of quiesce_02 got 3
#   resets, none of them sampled with requests in flight)
_inflight_soon() {
	local n i

	for i in $(seq 20); do
		n=$(_inflight "$1")
		[ "$n" -gt 0 ] && break
		[ "$i" -lt 20 ] && sleep 0.1
	done
	echo "$n"
}

# _completed DEV -- reads + writes + discards + flushes completed on DEV
_completed() {
	local f
	[ -r "/sys/block/$1/stat" ] && read -ra f < "/sys/block/$1/stat" ||
		{ echo 0; return; }
	echo $((f[0] + f[4] + ${f[11]:-0} + ${f[15]:-0}))
}

# _stress_begin NAME MAX -- in a stress loop (often a background subshell):
#   start counting cycles of NAME, at most MAX of them (or BB_STRESS_MAX,
#   if that is set and lower), for at most BB_STRESS_SECS seconds.  State
#   lives in $BB_TMP/stress.NAME, which the watchdog reads as progress and
#   _stress_result reads at the end.
_stress_begin() {
	BB_ST_NAME=$1 BB_ST_MAX=$2 BB_ST_N=0 BB_ST_INFL=0 BB_ST_T0=$(_now)
	[ -n "$BB_STRESS_MAX" ] && [ "$BB_ST_MAX" -gt "$BB_STRESS_MAX" ] &&
		BB_ST_MAX=$BB_STRESS_MAX
	_stress_state running
}

# _stress_continue -- true while the loop may run one more cycle
_stress_continue() {
	[ "$BB_ST_N" -lt "$BB_ST_MAX" ] &&
	[ $(($(_now) - BB_ST_T0)) -lt "$BB_STRESS_SECS" ] &&
	! _stalled
}

# _stress_step [INFLIGHT] -- one cycle done; INFLIGHT > 0: it started with
#   requests in flight.  (The watchdog prints the progress lines.)
_stress_step() {
	BB_ST_N=$((BB_ST_N + 1))
	[ "${1:-0}" -gt 0 ] && BB_ST_INFL=$((BB_ST_INFL + 1))
	_stress_state running
}

# _stress_end -- the loop is over (by count, time or stall)
_stress_end() {
	_stress_state "done"
}

# _stress_state STATE -- write the loop's state file whole (the watchdog
#   reads it meanwhile): "cycles inflight-cycles seconds max STATE"
_stress_state() {
	echo "$BB_ST_N $BB_ST_INFL $(($(_now) - BB_ST_T0)) $BB_ST_MAX $1" \
		> "$BB_TMP/stress.$BB_ST_NAME.tmp" &&
	mv -f "$BB_TMP/stress.$BB_ST_NAME.tmp" "$BB_TMP/stress.$BB_ST_NAME"
}

# _stress_spawn NAME CMD... -- run a stress loop in the background, its
#   output in a file (a loop stuck in the kernel must not hold the test
#   runner's pipe open); sets BB_STRESS_PID
_stress_spawn() {
	local name=$1
	shift

	rm -f "$BB_TMP/stress.$name"
	"$@" > "$BB_TMP/stress.$name.out" 2>&1 &
	BB_STRESS_PID=$!
	export BB_STRESS_PID
}

# _stress_wait NAME PID -- wait for the loop (stall-aware), show its output,
#   and set BB_CYCLES, BB_CYCLES_INFLIGHT, BB_CYCLES_SECS.  Returns the
#   loop's status, or 1 if it was abandoned after a stall.
_stress_wait() {
	local name=$1 pid=$2 rc

	_wait_pid "$pid"
	rc=$?
	cat "$BB_TMP/stress.$name.out" 2>/dev/null
	read -r BB_CYCLES BB_CYCLES_INFLIGHT BB_CYCLES_SECS _ \
		< "$BB_TMP/stress.$name" 2>/dev/null ||
		BB_CYCLES=0 BB_CYCLES_INFLIGHT=0 BB_CYCLES_SECS=0
	return $rc
}

# _stress_verdict WHAT MIN [inflight] -- after _stress_wait: log the figures;
#   fewer than MIN cycles is "too slow" (SKIP); with "inflight", no cycle
#   that started with requests in flight is a failure (nothing was tested).
_stress_verdict() {
	local what=$1 min=$2

	_log "$what: $BB_CYCLES cycles in $BB_CYCLES_SECS s," \
	     "$BB_CYCLES_INFLIGHT started with requests in flight"
	_stalled && return 1
	if [ "$BB_CYCLES" -lt "$min" ]; then
		_too_slow "$what: $BB_CYCLES cycles in $BB_CYCLES_SECS s (needs $min)"
		return 1
	fi
	if [ "${3:-}" = inflight ] && [ "$BB_CYCLES_INFLIGHT" -eq 0 ]; then
		_fail "$what: no cycle started with requests in flight"
		return 1
	fi
	return 0
}

# _stalled -- the watchdog has reported a stall in this test
_stalled() {
	[ -n "${BB_STALL_FILE:-}" ] && [ -e "$BB_STALL_FILE" ]
}

# _wait_pid PID -- wait for a background child; gives up (status 1) once
#   the watchdog reports a stall, instead of waiting for a task that may be
#   stuck in the kernel for good.  Polled through /proc, not "kill -0 PID
#   2>/dev/null": see _watchdog_start on opening files in /dev.
_wait_pid() {
	local pid=$1

	while [ -d "/proc/$pid" ]; do
		if _stalled; then
			sleep "$BB_WATCH_SECS"
			[ -d "/proc/$pid" ] && return 1
			break
		fi
		sleep 0.2
	done
	wait "$pid"
}

# _fail_io MESSAGE -- a workload failed: say "stalled" if it was a stall
_fail_io() {
	if _stalled; then
		_fail "stalled: $(cat "$BB_TMP/stalled") (during: $*)"
	else
		_fail "$*"
	fi
}

# _stall_dump DEV... -- the evidence of a stall, for the log
_stall_dump() {
	local dev h f c

	echo "blocked tasks (sysrq w) are in the kernel log"
	echo "$BB_SYSRQ_BEGIN" > /dev/kmsg 2>/dev/null
	echo w > /proc/sysrq-trigger 2>/dev/null
	echo "$BB_SYSRQ_END" > /dev/kmsg 2>/dev/null
	for dev in "$@"; do
		echo "== $dev: stat: $(cat "/sys/block/$dev/stat" 2>/dev/null)"
		echo "== $dev: inflight (in driver): $(cat "/sys/block/$dev/inflight" 2>/dev/null)"
		echo "== $dev: scheduler: $(cat "/sys/block/$dev/queue/scheduler" 2>/dev/null)"
		[ -d "$BB_DEBUGFS/$dev" ] || continue
		for f in "$BB_DEBUGFS/$dev"/state "$BB_DEBUGFS/$dev"/requeue_list \
			 "$BB_DEBUGFS/$dev"/sched/*; do
			[ -f "$f" ] && echo "== ${f#"$BB_DEBUGFS"/}:" &&
				head -n 20 "$f" 2>/dev/null
		done
		for h in "$BB_DEBUGFS/$dev"/hctx*; do
			for f in state flags dispatch busy active run dispatched \
				 tags sched_tags; do
				[ -f "$h/$f" ] || continue
				echo "== ${h#"$BB_DEBUGFS"/}/$f:"
				case $f in
				tags|sched_tags) grep -E '^(nr_tags|busy)=' "$h/$f" ;;
				*) head -n 20 "$h/$f" ;;
				esac
			done 2>/dev/null
			for f in "$h"/cpu*/*_rq_list; do
				# debugfs files have size 0: read them
				c=$(head -n 10 "$f" 2>/dev/null)
				[ -n "$c" ] && echo "== ${f#"$BB_DEBUGFS"/}:" &&
					echo "$c"
			done
		done
	done
}

# _stall_dump_bounded DEV... -- _stall_dump into $BB_TMP/stall.txt, in at
#   most 35 s: the dump reads debugfs files that take queue locks, and a
#   stuck lock holder must not hold up the caller too
_stall_dump_bounded() {
	BB_DEBUGFS=$BB_DEBUGFS BB_SYSRQ_BEGIN=$BB_SYSRQ_BEGIN \
	BB_SYSRQ_END=$BB_SYSRQ_END timeout -k 5 30 bash -c \
		"$(declare -f _stall_dump); _stall_dump \"\$@\"" bb-dump "$@" \
		> "$BB_TMP/stall.txt" 2>&1
}

# _descendants PID -- every descendant of PID (from /proc: busybox has no
#   pgrep)
_descendants() {
	local f p pp rest
	local -A kids=()

	for f in /proc/[0-9]*/stat; do
		# pid (comm) state ppid ...; comm may hold spaces
		read -r rest 2>/dev/null < "$f" || continue
		p=${rest%% *}
		rest=${rest##*) }
		pp=${rest#* }
		pp=${pp%% *}
		kids[$pp]+="$p "
	done
	_desc_walk() {
		local c
		for c in ${kids[$1]:-}; do
			echo "$c"
			_desc_walk "$c"
		done
	}
	_desc_walk "$1"
}

# _watch_devs DEV... -- the DEVs, with each pattern (ublkb*) expanded to
#   the disks in /sys/block that match it now
_watch_devs() {
	local d p

	for d in "$@"; do
		case $d in
		*[*?]*)
			for p in /sys/block/$d; do
				[ -e "$p" ] && echo "${p##*/}"
			done ;;
		*) echo "$d" ;;
		esac
	done
}

# _watchdog_start DEV... -- watch the I/O of DEVs and the stress loops for
#   progress.  A DEV may be a pattern (ublkb*), read again at every poll, for
#   disks that a test adds and removes.  A caller may define _watch_progress,
#   which prints the state of its own workers (the processes of a test it runs):
#   any change of it is progress too.
#   Stall: for BB_STALL_SECS, no I/O completed on any DEV while
#   requests were in flight, or nothing moved at all (no completion, no
#   stress cycle).  Its loop opens nothing in /dev (no "2>/dev/null": its
#   stderr is opened once): a program under test may watch /dev with
#   inotify, as kublk's del does for the close of its char device, and
#   every open and close there would wake it.
#   On a stall it writes the reason to $BB_TMP/stalled, the
#   evidence to $BB_TMP/stall.txt, kills this test's fio processes (a stuck
#   one stays, but no longer holds the test up) and stops.  Also prints
#   progress lines, so that a cut log shows where a test was.
_watchdog_start() {
	local main=$$

	_watchdog_stop
	(
		trap 'exit 0' TERM
		exec 2>/dev/null
		own_fn=$(declare -F _watch_progress)
		sig='' t0=$(_now) t_io=$t0 t_any=$t0 t_prog=$t0
		while [ -d "/proc/$main" ]; do
			sleep "$BB_WATCH_SECS"
			now=$(_now)
			io='' infl=0
			devs=$(_watch_devs "$@")
			for d in $devs; do
				io+="$(_completed "$d") "
				infl=$((infl + $(_inflight "$d")))
			done
			# a disk added or removed is progress
			io+="($(echo $devs))"
			st='' sig_st='' own=''
			[ -z "$own_fn" ] || own=$(_watch_progress) sig_st+="$own "
			for f in "$BB_TMP"/stress.*; do
				case $f in *.out|*.tmp|*"stress.*") continue ;; esac
				read -r n i t m state < "$f" || continue
				# a finished loop is progress, but old news
				sig_st+="$n "
				[ "$state" = running ] || continue
				st+=" ${f##*/stress.} cycle $n of $m"
				st+=" ($i with requests in flight), $t s;"
			done
			[ "$io" != "${last_io:-}" ] && t_io=$now
			[ "$io $sig_st" != "${sig:-}" ] && t_any=$now
			last_io=$io sig="$io $sig_st"
			if [ $((now - t_prog)) -ge "$BB_PROGRESS_SECS" ]; then
				t_prog=$now
				echo "# $TID: progress: $((now - t0)) s:" \
				     "completed I/Os ${io% }, in flight $infl;$st${own:+ $own}"
			fi
			why=
			if [ "$infl" -gt 0 ] && [ $((now - t_io)) -ge "$BB_STALL_SECS" ]; then
				why="no I/O completed on $(echo $devs) for $((now - t_io)) s"
				why+=" with $infl requests in flight"
			elif [ $((now - t_any)) -ge "$BB_STALL_SECS" ]; then
				why="no I/O completed and no stress cycle on $(echo $devs)"
				[ -z "$own" ] || why+=", and no progress of the test's own"
				why+=" for $((now - t_any)) s"
			fi
			[ -n "$why" ] || continue
			echo "$why" > "$BB_STALL_FILE"
			for p in $(_descendants "$main"); do
				[ "$(cat "/proc/$p/comm" 2>/dev/null)" = fio ] &&
					kill -KILL "$p" 2>/dev/null
			done
			_stall_dump_bounded $devs
			exit 0
		done
	) &
	BB_WATCHDOG_PID=$!
}

_watchdog_stop() {
	local i

	[ -n "${BB_WATCHDOG_PID:-}" ] || return 0
	# After a stall it is writing the dump (at most 35 s, see timeout):
	# let it finish and exit by itself.
	if _stalled; then
		for i in $(seq 400); do
			kill -0 "$BB_WATCHDOG_PID" 2>/dev/null || break
			sleep 0.1
		done
	fi
	kill "$BB_WATCHDOG_PID" 2>/dev/null
	for i in $(seq 100); do
		kill -0 "$BB_WATCHDOG_PID" 2>/dev/null || break
		[ "$i" -eq 50 ] && kill -KILL "$BB_WATCHDOG_PID" 2>/dev/null
		sleep 0.1
	done
	kill -0 "$BB_WATCHDOG_PID" 2>/dev/null || wait "$BB_WATCHDOG_PID" 2>/dev/null
	BB_WATCHDOG_PID=
}

# _verify_while NAME PID DEV [fio option]... -- short fio write+verify runs
#   on DEV, one after the other, for as long as stress loop NAME (PID) runs,
#   at least once; then waits for the loop (_stress_wait).  Sets BB_RUNS.
#   Fails the test at the first verify error or stall.  The fio options
#   come last (--verify=0 --do_verify=0: a device that keeps no data).
_verify_while() {
	local name=$1 pid=$2 dev=$3
	shift 3

	BB_RUNS=0
	while kill -0 "$pid" 2>/dev/null || [ "$BB_RUNS" -eq 0 ]; do
		if ! _fio_verify "$dev" io_uring --size=8M --offset_increment=8M "$@"; then
			_fail_io "$name: fio write+verify failed"
			break
		fi
		BB_RUNS=$((BB_RUNS + 1))
	done
	_stress_wait "$name" "$pid" || _fail_io "$name: the stress loop failed"
	! _stalled && [ "$BB_ERR" -eq 0 ]
}

# The watchdog's sysrq-w dump (stacks of blocked tasks) sits between these
# kernel log lines: it is evidence of a stall, not a splat of its own.
BB_SYSRQ_BEGIN="block-batch-selftest: stall dump begin"
BB_SYSRQ_END="block-batch-selftest: stall dump end"

# Everything the kernel must never say while a test runs.
BB_SPLAT_RE='WARNING:|BUG:|Oops|general protection fault'
BB_SPLAT_RE+='|possible circular locking|possible recursive locking'
BB_SPLAT_RE+='|inconsistent lock state|possible irq lock inversion'
BB_SPLAT_RE+='|suspicious RCU usage|turning off the locking correctness validator'
BB_SPLAT_RE+='|KASAN:|KCSAN:|UBSAN:|blocked for more than|soft lockup|hard LOCKUP'
BB_SPLAT_RE+='|Call Trace:'

# _prep_test DESCRIPTION -- mark the kernel log and make a scratch directory
_prep_test() {
	BB_ERR=0
	BB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/block-batch-$TID.XXXXXX")
	# where the watchdog reports a stall (fixed: subshells may move BB_TMP)
	BB_STALL_FILE=$BB_TMP/stalled
	BB_MARK="block-batch-selftest: start $TID $$ $RANDOM"
	BB_T0=$(_now)
	echo "$BB_MARK" > /dev/kmsg 2>/dev/null || BB_MARK=
	_log "$*"
}

# _check_dmesg -- fail on any splat logged since _prep_test
_check_dmesg() {
	local log

	[ -n "${BB_MARK:-}" ] || return 0
	if ! dmesg | grep -qF "$BB_MARK"; then
		# A flood of reports pushed the test's start out of the ring
		# buffer: it cannot be checked, and a flood is no pass.
		dmesg | tail -n 40 | sed 's/^/# dmesg: /'
		_fail "the kernel log overflowed since the test started"
		return
	fi
	log=$(dmesg | sed -n "/$BB_MARK/,\$p" |
	      sed "/$BB_SYSRQ_BEGIN/,/$BB_SYSRQ_END/d")
	if echo "$log" | grep -Eq "$BB_SPLAT_RE"; then
		echo "$log" | sed 's/^/# dmesg: /' | head -n 80
		_fail "kernel splat in dmesg"
	fi
}

_cleanup_test() {
	local name

	_watchdog_stop
	if _stalled; then
		# Removing a device that holds a stranded request would hang.
		_log "stalled: leaving" "${BB_DM_NAMES[*]} ${BB_NULLB_NAMES[*]}" \
			"${BB_SDEBUG_DEV:-}" \
			"$(sed 's/^/ublkb/' "$BB_TMP/ublk.ids" 2>/dev/null)" "in place"
	else
		# dm devices first: they hold the null_blks under them open.
		for name in "${BB_DM_NAMES[@]}"; do
			_mpath_remove "$name" && continue
			_fail "cannot remove dm device $name"
			_log "leaving ${BB_NULLB_NAMES[*]} in place: $name holds them"
			BB_NULLB_NAMES=()
		done
		for name in "${BB_NULLB_NAMES[@]}"; do
			_nullb_destroy "$name"
		done
		[ -z "${BB_SDEBUG_HOW:-}" ] || _sdebug_remove
		_ublk_del_all
	fi
	BB_DM_NAMES=() BB_NULLB_NAMES=()
	[ -n "${BB_TMP:-}" ] && rm -rf "$BB_TMP"
}

# _show_result -- check dmesg, clean up, print and exit with the verdict
#   (FAIL over SKIP over PASS: see _too_slow)
_show_result() {
	_watchdog_stop
	if _stalled; then
		_fail "stalled: $(cat "$BB_TMP/stalled")"
		sed 's/^/# stall: /' "$BB_TMP/stall.txt"
	fi
	_check_dmesg
	_cleanup_test
	_log "took $(($(_now) - ${BB_T0:-0})) s"
	if [ "${BB_ERR:-1}" -ne 0 ]; then
		echo "$TID : [FAIL]"
		exit 1
	fi
	if [ ${#BB_SKIP_REASONS[@]} -gt 0 ]; then
		echo "# $TID: SKIP: ${BB_SKIP_REASONS[*]}"
		echo "$TID : [SKIP]"
		exit "$BB_SKIP_CODE"
	fi
	echo "$TID : [PASS]"
	exit 0
}
