#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The QEMU launcher of every guest: the test guests (scripts/test.sh) and the
# benchmark guests (scripts/bench/run-guests.sh, also in the 'run.sh --pack'
# bundle, which ships this file and lib.sh).  Boots a kernel + initramfs with
# the serial console in LOG and the scratch disks defined here (-d).  The
# guest runs in a process group of its own (setsid): one that does not
# power off within the timeout, whose console stays silent too long (-w), or
# whose launcher is terminated, is killed with its whole group.
#
# usage: boot.sh [-q QEMU] [-a tcg|kvm] [-s SMP] [-m MEM] [-t TIMEOUT]
#                [-w SILENCE] [-x APPEND]...
#                [-d KIND:IMG[,queues=N][,nonrot][,ns=IMG]]... [-n]
#                BZIMAGE INITRAMFS LOG
#   -q QEMU     QEMU binary or wrapper (default qemu-system-x86_64)
#   -a ACCEL    tcg (default: KVM hangs on the 2-core hosts) or kvm
#   -s SMP      vCPUs (default 2)
#   -m MEM      memory (default 2G)
#   -t TIMEOUT  seconds until the guest is killed (default 1800)
#   -w SILENCE  seconds without a line from the guest's user space on the
#               console after which the guest is killed as hung (default:
#               never).  A kernel whose vCPUs all spin with interrupts off
#               prints nothing more, not even the hung task detector's
#               report; one that deadlocked with a vCPU still taking
#               interrupts prints the RCU stall detector's and the soft
#               lockup detector's reports for ever.  Kernel messages (lines
#               that begin with printk's "[ seconds.micro]") are therefore
#               not progress: only the silence of the tests and their
#               runner tells a hung guest from a slow one
#   -x APPEND   more kernel command line, after "console=ttyS0 panic=-1
#               null_blk.nr_devices=0"; each -x adds to it.  With -d,
#               bb.scratch=N follows: the number of scratch block devices
#               (namespaces and SCSI disks), for scripts/guest/init
#   -d DISK     a scratch disk on the image IMG (its data is destroyed):
#               nvme         QEMU's NVMe controller, serial "bbnvme" (the
#                            second "bbnvme2", ...), IMG its namespace;
#                            queues=N I/O queue pairs; ns=IMG2 a second
#                            namespace (nsid 2) on IMG2, each further ns=
#                            the next: namespaces that share the
#                            controller's queues, so one completion batch
#                            (its interrupt handler's) holds requests of
#                            several request queues
#               virtio-scsi  a SCSI disk, model "bbscratch", on virtio-scsi;
#                            queues=N request queues
#               megasas      a SCSI disk, model "bbscratch", on QEMU's LSI
#                            MegaRAID SAS 2108 (megasas-gen2: megaraid_sas)
#               nonrot       the SCSI disk says it does not rotate, like
#                            null_blk (bfq does not idle on it)
#   -n          print the QEMU command line and run nothing
#   -h          this help
# Exit: 0 the guest powered off by itself; 124 timeout or silence (the log
# ends with BB-GUEST-TIMEOUT or BB-GUEST-SILENT); 2 bad usage;
# other: QEMU failed.

set -u
. "$(dirname "$0")/lib.sh"

bad() { echo "boot.sh: $*" >&2; exit 2; }
usage() { bad "usage: boot.sh [-q QEMU] [-a tcg|kvm] [-s SMP] [-m MEM] [-t TIMEOUT] [-w SILENCE] [-x APPEND]... [-d KIND:IMG[,queues=N][,nonrot]]... [-n] BZIMAGE INITRAMFS LOG (-h: help)"; }
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || bad "$1 '$2': not a positive number"; }

# disk_args N SPEC -- add the QEMU options of scratch disk number N, given
# as -d SPEC, to dev_args (and the kernel options it needs to disk_append)
nr_nvme=0 nr_scratch=0
disk_args() {
	local n=$1 kind=${2%%:*} img opts o queues= nonrot= ns=() i

	[ "$kind" != "$2" ] || bad "-d '$2': KIND:IMG[,queues=N][,nonrot][,ns=IMG]"
	img=${2#*:} && img=${img%%,*}
	opts=${2#*:} && opts=${opts#"$img"}
	[ -n "$img" ] || bad "-d '$2': no image"
	[ -w "$img" ] || bad "-d '$2': cannot write $img"
	for o in ${opts//,/ }; do
		case $o in
		queues=*) queues=${o#queues=}; posint "-d $kind: queues" "$queues" ;;
		nonrot) nonrot=1 ;;
		ns=?*)
			[ -w "${o#ns=}" ] || bad "-d '$2': cannot write ${o#ns=}"
			ns+=("${o#ns=}") ;;
		*) bad "-d '$2': unknown option '$o' (queues=N, nonrot, ns=IMG)" ;;
		esac
	done
	dev_args+=(-drive "file=$img,if=none,id=bbdisk$n,format=raw")
	case $kind in
	nvme)
		[ -z "$nonrot" ] || bad "-d '$2': nonrot is for SCSI disks"
		nr_nvme=$((nr_nvme + 1))
		nr_scratch=$((nr_scratch + 1 + ${#ns[@]}))
		if [ ${#ns[@]} -eq 0 ]; then
			dev_args+=(-device "nvme,serial=bbnvme${nr_nvme#1},drive=bbdisk$n${queues:+,max_ioqpairs=$queues}")
		else
			dev_args+=(-device "nvme,id=bbnvme$n,serial=bbnvme${nr_nvme#1}${queues:+,max_ioqpairs=$queues}"
				   -device "nvme-ns,drive=bbdisk$n,bus=bbnvme$n,nsid=1")
			for i in "${!ns[@]}"; do
				dev_args+=(-drive "file=${ns[i]},if=none,id=bbdisk${n}n$((i + 2)),format=raw"
					   -device "nvme-ns,drive=bbdisk${n}n$((i + 2)),bus=bbnvme$n,nsid=$((i + 2))")
			done
		fi
		# QEMU's emulated NVMe under TCG once kept its INTx line
		# asserted during a controller reset (test_quiesce_02,
		# 2026-11-23, commit f28ff85): "irq 11: nobody cared", a stack
		# dump, and the IRQ disabled, while I/O went on through MSI-X.
		# That is the emulated device, not the block layer; a lost
		# interrupt that matters still shows as a stall or a timeout.
		disk_append=" noirqdebug" ;;
	virtio-scsi|megasas)
		[ ${#ns[@]} -eq 0 ] || bad "-d '$2': ns= is for NVMe"
		nr_scratch=$((nr_scratch + 1))
		if [ $kind = virtio-scsi ]; then
			dev_args+=(-device "virtio-scsi-pci,id=bbhba$n${queues:+,num_queues=$queues}")
		else
			[ -z "$queues" ] || bad "-d '$2': megasas has one queue"
			dev_args+=(-device "megasas-gen2,id=bbhba$n")
		fi
		dev_args+=(-device "scsi-hd,drive=bbdisk$n,bus=bbhba$n.0,product=bbscratch${nonrot:+,rotation_rate=1}") ;;
	*) bad "-d '$2': KIND is nvme, virtio-scsi or megasas, not '$kind'" ;;
	esac
}

qemu=qemu-system-x86_64 accel=tcg smp=2 mem=2G tmo=1800 silence= dry=
append="console=ttyS0 panic=-1 null_blk.nr_devices=0" dev_args=() nr_disk=0 disk_append=
while getopts "q:a:s:m:t:w:x:d:nh" opt; do
	case $opt in
	q) qemu=$OPTARG ;;
	a) accel=$OPTARG ;;
	s) smp=$OPTARG ;;
	m) mem=$OPTARG ;;
	t) tmo=$OPTARG ;;
	w) silence=$OPTARG ;;
	x) append+=" $OPTARG" ;;
	d) disk_args $nr_disk "$OPTARG"; nr_disk=$((nr_disk + 1)) ;;
	n) dry=1 ;;
	h) bb_help "$0"; exit 0 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || usage
kernel=$1 initrd=$2 log=$3
posint -s "$smp"
posint -t "$tmo"
[ -z "$silence" ] || posint -w "$silence"
case $accel in
kvm) accel_args=(-accel kvm -cpu host) ;;
tcg) accel_args=(-accel tcg,thread=multi -cpu max) ;;
*) bad "-a '$accel': tcg or kvm" ;;
esac
need_tools "$qemu" timeout setsid
[ "$accel" = tcg ] || [ -w /dev/kvm ] || die "-a kvm: /dev/kvm is not usable"
[ -r "$kernel" ] || die "no kernel image $kernel"
[ -r "$initrd" ] || die "no initramfs $initrd"

[ $nr_scratch -eq 0 ] || append+=" bb.scratch=$nr_scratch"

cmd=("$qemu" "${accel_args[@]}" -smp "$smp" -m "$mem"
     -kernel "$kernel" -initrd "$initrd" -append "$append$disk_append"
     -display none -vga none -monitor none -nic none -serial "file:$log"
     -no-reboot "${dev_args[@]}")
if [ -n "$dry" ]; then
	# one line for a shell: quoted where an argument needs it
	for a in "${cmd[@]}"; do
		[[ $a =~ ^[][A-Za-z0-9_./:=,+@%-]+$ ]] || a=${a@Q}
		printf '%s ' "$a"
	done
	echo
	exit 0
fi
: > "$log" || die "cannot write $log"
# setsid in a background job makes its own process the group leader: pid
# is the group to kill
setsid timeout -k 10 "$tmo" "${cmd[@]}" </dev/null &
pid=$!
wpid='' silent=''
if [ -n "$silence" ]; then
	# the watcher: kills the guest's group once no line but kernel
	# messages has come to the console for SILENCE seconds, and writes
	# the mark of the exit status into its own empty file.  It reads the
	# complete lines written since it last looked (bytes, NULs as
	# blanks, so that its offset stays that of the file)
	silent=$(mktemp) || die "cannot create a temporary file"
	(
		export LC_ALL=C
		off=0 since=$SECONDS
		while sleep 1; do
			size=$(stat -c %s "$log" 2>/dev/null) || size=0
			if [ "$size" -gt "$off" ]; then
				new=$(tail -c +$((off + 1)) "$log" 2> /dev/null | head -c $((size - off)) |
				      tr '\0' ' '; printf x)
				new=${new%x}
				case $new in
				*$'\n'*)
					new=${new%$'\n'*}
					off=$((off + ${#new} + 1))
					if printf '%s\n' "$new" 2> /dev/null |
					   grep -qv '^[[:cntrl:]]*\[ *[0-9]*\.[0-9]*\]'; then
						since=$SECONDS
					fi
					;;
				esac
			fi
			if [ $((SECONDS - since)) -ge "$silence" ]; then
				echo silent > "$silent"
				kill -- "-$pid" 2>/dev/null
				sleep 10
				kill -KILL -- "-$pid" 2>/dev/null
				exit 0
			fi
		done
	) &
	wpid=$!
fi
# stop_watch -- end the watcher, if any, and remove its file
stop_watch() {
	[ -z "$wpid" ] || kill "$wpid" 2>/dev/null
	[ -z "$silent" ] || rm -f "$silent"
}
trap 'kill -- "-$pid" 2>/dev/null; stop_watch; exit 143' TERM HUP
trap 'kill -- "-$pid" 2>/dev/null; stop_watch; exit 130' INT
wait "$pid"
rc=$?
hung=0
[ -z "$silent" ] || [ ! -s "$silent" ] || hung=1
stop_watch
if [ $hung -eq 1 ]; then
	warn "no line but kernel messages on the guest console for ${silence}s: killed as hung"
	echo "BB-GUEST-SILENT after ${silence}s" >> "$log"
	exit 124
fi
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	warn "guest did not finish within ${tmo}s: killed"
	echo "BB-GUEST-TIMEOUT after ${tmo}s" >> "$log"
	exit 124
fi
exit $rc
