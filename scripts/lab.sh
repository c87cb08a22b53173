#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A segnet virtual lab on one machine: switchd and N nodes served by nicd,
# joined by virtual links. doc/operations.md#virtual-lab explains it.
#
#   scripts/lab.sh up [--nodes N] [--link vhost|veth|memif] [options]
#   scripts/lab.sh status [--name NAME] [--dir DIR]
#   scripts/lab.sh env [--name NAME] [--dir DIR]      (eval "$(scripts/lab.sh env)")
#   scripts/lab.sh down [--name NAME] [--dir DIR] [--timeout SEC]
#   scripts/lab.sh stop-node NODE | start-node NODE   (a node with its own nicd)
#   scripts/lab.sh attach NODE    (EAL arguments to take a stopped node's port)
#                                 (NODE: n0, n1, ... as up named them; another
#                                 spelling, n01, or a node not in the lab
#                                 is a bad argument)
#   scripts/lab.sh restart-switchd (stop switchd, start it again, wait for the
#                                  nodes to join it; the nicds reconnect)
#   scripts/lab.sh --help
#
# up options:
#   --nodes N          nodes n0 .. n(N-1), 2 to 32 (default 3; switchd takes a
#                      DPDK port per node, and Debian's DPDK has 32)
#   --link TYPE        vhost (default: net_vhost in switchd, net_virtio_user in
#                      nicd), veth (af_packet on veth pairs, in network
#                      namespaces; root) or memif (no privileges)
#   --solo K           the last K nodes get a nicd process each (default 0: one
#                      nicd serves every node), so stop-node/start-node can
#                      take one away and bring it back while the others run
#   --conf CONF        protocol configuration of virtual network 1 (default conf3)
#   --vnet ID:CONF     one more virtual network, with a key of its own
#                      (repeatable); its key file is DIR/vnetID.key
#   --no-late-floor    leave the retransmission timer's late_floor off. By
#                      default up appends ,timer:late_floor=on to every
#                      configuration given by name with a timer (conf2,
#                      conf3, conf4-gbn, conf4-sr, with or without
#                      overrides, unless they set late_floor): the lab's
#                      daemons share cores, so a round trip now and then
#                      takes far longer than the rest, and without the
#                      floor nicd resends those packets needlessly
#                      (doc/protocol.md, late acknowledgments). A stage
#                      list is taken as it is. Nor with a --fault or
#                      --switch-fault that loses frames (loss or corrupt
#                      above 0): the floor would hold every lost frame back
#   --key-file FILE    key of virtual network 1 (default: a random key,
#                      written to DIR/vnet1.key, mode 0600)
#   --bulk-gbps G      bulk rate: sets the slot (default 0.05: 345 us slots)
#   --quick-gbps G     quick rate (default 1): switchd's, and every nicd's
#                      QREQ pace
#   --down-ms MS       a node silent this long is down (default 500)
#   --busy             no idle back-off (busy polling: a core per daemon)
#   --fault SPEC       fault injection in every nicd, on every frame a node
#                      sends (nicd --fault: loss=P,dup=P,reorder=P,corrupt=P,
#                      delay-us=US,delay-frames=N,seed=S; this machine has
#                      no netem)
#   --switch-fault SPEC  the same in switchd, on every frame it sends
#   --grant-lead L     switchd --grant-lead: grants L slots ahead, for round
#                      trips longer than two slots (a --fault delay, say)
#   --huge             hugepages instead of --no-huge (root): reserves what
#                      is missing and mounts hugetlbfs in DIR; down undoes it
#   --cores LIST       CPUs: switchd on the first, the nicds on the others in
#                      turn (default: the CPUs this process may use; on two,
#                      switchd on one and every nicd on the other)
#   --join-timeout S   how long up (and restart-switchd) waits for every node
#                      to join (default 20)
#   --nicd-first       start the nicds before switchd: each comes up without
#                      its switch (memif: its ports wait, restarted with
#                      back-off until switchd answers; vhost: its virtio-user
#                      devices are created again with back-off until
#                      switchd's vhost-user server answers) and its nodes
#                      join once switchd is there
#   --build DIR        where the binaries are (default: the tree's build/,
#                      then $PATH)
# Every command takes:
#   --name NAME        the lab's name (default lab): telemetry prefixes
#                      segnet-lab-NAME-*, namespaces segnet-lab-NAME-*
#   --dir DIR          its directory (default /run/segnet-lab/NAME as root,
#                      else ${XDG_RUNTIME_DIR:-/tmp}/segnet-lab/NAME): state
#                      file, logs, link sockets (DIR/links), nicd control
#                      sockets (DIR/nicd: SEGNET_SOCKET_DIR), key files;
#                      up wants it new or empty, and down removes it if up
#                      made it. With --dir alone a command finds the lab's
#                      name in DIR
# Which lab: --dir, else --name (its default directory), else, for every
# command but up, $SEGNET_LAB_DIR (eval "$(scripts/lab.sh env)" exports
# it), else the lab named lab.
#
# The daemons run in sessions of their own: a Ctrl-C in the terminal or
# script that ran up does not stop them once up has returned (down does).
# A Ctrl-C (SIGINT, SIGTERM, SIGHUP, SIGQUIT) during up tears down what up
# started and ends by that signal (status 130, 143, 129, 131), so that a
# script that ran up stops too; so does up's work when up's shell is
# killed. Its output closed (SIGPIPE) before the lab is up, it tears down
# too, saying so, and exits 141.
#
# Exit status: 0 done (status: the lab is up and every node joined), 1 a
# failure or a lab not up (the message says which), 2 bad arguments, 130
# (143, 129, 131) up interrupted by SIGINT (SIGTERM, SIGHUP, SIGQUIT), 141
# its output closed before the lab was up.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prog=lab.sh

synopsis="scripts/lab.sh up|down|status|env|stop-node|start-node|attach|restart-switchd [options]"
# shellcheck source=scripts/lib/cli.sh
. "$top/scripts/lib/cli.sh"
# shellcheck source=scripts/lib/signals.sh
. "$top/scripts/lib/signals.sh"

say() {
	echo "$prog: $*"
}

# ---------------------------------------------------------------- options

cmd=
node_arg=
nodes=3
link=vhost
solo=0
conf=conf3
extra_vnets=()
late_floor=1	# up appends timer:late_floor=on (with_late_floor)
key_file=
bulk_gbps=0.05
quick_gbps=1
down_ms=500
busy=0
nicd_fault=
switch_fault=
grant_lead=1
huge=0
cores=
join_timeout=20
nicd_first=0
builddir=
name=lab
name_given=0	# --name was given (else a lab found by --dir keeps its own)
dir=
stop_timeout=5
start_timeout=10	# seconds for a started daemon to run its binary (start_proc)
keep_dir=0	# teardown keeps DIR (up reuses it, or the user's --dir)
dir_from_env=0	# DIR is $SEGNET_LAB_DIR (no --name, no --dir)

# need OPTION VALUE-COUNT [VALUE]: check that an option has its value (not
# the next option: --link --nodes 3 is a missing value, not link '--nodes').
need() {
	[ "$2" -ge 2 ] && [[ "${3:-}" != --* ]] || die_usage "$1 needs a value"
}

# A decimal count; no leading zeros, which bash's arithmetic reads as octal.
is_uint() {
	[[ "$1" =~ ^(0|[1-9][0-9]*)$ ]]
}

# The link rates the daemons take (dp_opt_gbps: switchd's --bulk-gbps and
# --quick-gbps, nicd's --quick-gbps), "MIN MAX" in Gbit/s as written in
# dataplane/dp_opts.h, where they are defined: read there, not written
# again here, so that up refuses a rate before it makes or starts anything.
gbps_range() {
	local h="$top/dataplane/dp_opts.h" r
	r=$(awk '$1 == "#define" && $2 == "DP_OPT_GBPS_MIN" { lo = $3 }
		$1 == "#define" && $2 == "DP_OPT_GBPS_MAX" { hi = $3 }
		END { if (lo ~ /^[0-9.]+$/ && hi ~ /^[0-9.]+$/) printf "%g %g", lo, hi }' "$h" 2>/dev/null)
	[ -n "$r" ] || die "cannot read the daemons' link rates (DP_OPT_GBPS_MIN, DP_OPT_GBPS_MAX) in $h"
	echo "$r"
}

# check_rate OPTION G: G, a decimal number, is a link rate the daemons take.
check_rate() {
	local range lo hi
	range=$(gbps_range) || exit 1
	read -r lo hi <<<"$range"
	[[ "$2" =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v g="$2" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(g >= lo && g <= hi) }' ||
		die_usage "$1 must be a rate in Gbit/s from $lo to $hi (what switchd and nicd take), not '$2'"
}

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		-h|--help) usage; exit 0 ;;
		--nodes) need "$1" $# "${2:-}"; nodes=$2; shift ;;
		--link) need "$1" $# "${2:-}"; link=$2; shift ;;
		--solo) need "$1" $# "${2:-}"; solo=$2; shift ;;
		--conf) need "$1" $# "${2:-}"; conf=$2; shift ;;
		--vnet) need "$1" $# "${2:-}"; extra_vnets+=("$2"); shift ;;
		--no-late-floor) late_floor=0 ;;
		--key-file) need "$1" $# "${2:-}"; key_file=$2; shift ;;
		--bulk-gbps) need "$1" $# "${2:-}"; bulk_gbps=$2; shift ;;
		--quick-gbps) need "$1" $# "${2:-}"; quick_gbps=$2; shift ;;
		--down-ms) need "$1" $# "${2:-}"; down_ms=$2; shift ;;
		--busy) busy=1 ;;
		--fault) need "$1" $# "${2:-}"; nicd_fault=$2; shift ;;
		--switch-fault) need "$1" $# "${2:-}"; switch_fault=$2; shift ;;
		--grant-lead) need "$1" $# "${2:-}"; grant_lead=$2; shift ;;
		--huge) huge=1 ;;
		--cores) need "$1" $# "${2:-}"; cores=$2; shift ;;
		--join-timeout) need "$1" $# "${2:-}"; join_timeout=$2; shift ;;
		--nicd-first) nicd_first=1 ;;
		--build) need "$1" $# "${2:-}"; builddir=$2; shift ;;
		--name) need "$1" $# "${2:-}"; name=$2; name_given=1; shift ;;
		--dir) need "$1" $# "${2:-}"; dir=$2; shift ;;
		--timeout) need "$1" $# "${2:-}"; stop_timeout=$2; shift ;;
		-*) die_usage "unknown option '$1'" ;;
		*)
			if [ -z "$cmd" ]; then
				cmd=$1
			elif [ -z "$node_arg" ]; then
				node_arg=$1
			else
				die_usage "unexpected argument '$1'"
			fi
			;;
		esac
		shift
	done
}

# with_late_floor CONF: CONF with the timer's late_floor on, unless
# --no-late-floor. Only a configuration name (and its overrides) gets it,
# one that has a timer: conf1 has none (an override would add a timer
# without genp, which nicd refuses); a stage list, or a configuration that
# sets late_floor itself, is left as the user wrote it.
# fault_loses SPEC: true when the fault SPEC loses frames (loss or corrupt
# above 0; a corrupt frame fails its CRC and is dropped).
fault_loses() {
	[[ ",$1" =~ ,(loss|corrupt)=0*\.?0*[1-9] ]]
}

with_late_floor() {
	if [ "$late_floor" = 1 ] && [[ "$1" =~ ^conf[^,]*(,|$) ]] &&
		[[ ! "$1" =~ ^conf1(,|$) ]] && [[ "$1" != *late_floor=* ]]; then
		printf '%s,timer:late_floor=on\n' "$1"
	else
		printf '%s\n' "$1"
	fi
}

check_args() {
	case "$cmd" in
	up|down|status|env|restart-switchd)
		[ -z "$node_arg" ] || die_usage "$cmd takes no NODE ('$node_arg')" ;;
	stop-node|start-node|attach)
		[ -n "$node_arg" ] || die_usage "$cmd needs a NODE (n0, n1, ...)"
		# One spelling per node: n02 would name device net_memif02 and
		# process nicd-n02, which n2's are not (attach would hand out
		# n2's link while nicd-n2 runs; stop-node would stop nothing).
		[[ "$node_arg" =~ ^n(0|[1-9][0-9]*)$ ]] ||
			die_usage "NODE must be n0, n1, ... (n and the node's number, no leading zero), not '$node_arg'" ;;
	"") die_usage "no command" ;;
	*) die_usage "unknown command '$cmd'" ;;
	esac
	[[ "$name" =~ ^[A-Za-z0-9_-]{1,24}$ ]] ||
		die_usage "--name must be 1 to 24 letters, digits, _ or -, not '$name'"
	is_uint "$stop_timeout" && [ "$stop_timeout" -ge 1 ] && [ "$stop_timeout" -le 3600 ] ||
		die_usage "--timeout must be a whole number of seconds from 1 to 3600, not '$stop_timeout'"
	is_uint "$join_timeout" && [ "$join_timeout" -ge 1 ] ||
		die_usage "--join-timeout must be a whole number of seconds, at least 1, not '$join_timeout'"
	[ "$cmd" = up ] || return 0
	is_uint "$nodes" && [ "$nodes" -ge 2 ] && [ "$nodes" -le 32 ] ||
		die_usage "--nodes must be 2 to 32 (switchd takes a DPDK port per node; RTE_MAX_ETHPORTS is 32), not '$nodes'"
	case "$link" in
	vhost|veth|memif) ;;
	*) die_usage "--link must be vhost, veth or memif, not '$link'" ;;
	esac
	is_uint "$solo" && [ "$solo" -le "$nodes" ] ||
		die_usage "--solo must be 0 to --nodes ($nodes), not '$solo'"
	check_rate --bulk-gbps "$bulk_gbps"
	check_rate --quick-gbps "$quick_gbps"
	is_uint "$down_ms" && [ "$down_ms" -ge 10 ] ||
		die_usage "--down-ms must be a whole number of milliseconds, at least 10, not '$down_ms'"
	local f
	for f in "--fault:$nicd_fault" "--switch-fault:$switch_fault"; do
		[ -z "${f#*:}" ] || [[ "${f#*:}" =~ ^[a-z-]+=[0-9.e+-]+(,[a-z-]+=[0-9.e+-]+)*$ ]] ||
			die_usage "${f%%:*} must be KEY=VALUE,... (loss=0.01,delay-us=500), not '${f#*:}'"
	done
	is_uint "$grant_lead" && [ "$grant_lead" -ge 1 ] && [ "$grant_lead" -le 64 ] ||
		die_usage "--grant-lead must be 1 to 64, not '$grant_lead'"
	[[ "$conf" =~ ^[A-Za-z0-9_,:=.-]+$ ]] || die_usage "--conf '$conf': not a configuration"
	local v
	for v in "${extra_vnets[@]}"; do
		[[ "$v" =~ ^([0-9]+):([A-Za-z0-9_,:=.-]+)$ ]] && [ "${BASH_REMATCH[1]}" -ne 1 ] &&
			[ "${BASH_REMATCH[1]}" -le 65535 ] ||
			die_usage "--vnet must be ID:CONF with ID 2 .. 65535 (1 is --conf's), not '$v'"
	done
	if [ "$late_floor" = 1 ] && { fault_loses "$nicd_fault" || fault_loses "$switch_fault"; }; then
		late_floor=0
		say "frames are lost (--fault or --switch-fault): the timer's late_floor stays off, it would hold every lost frame back (doc/protocol.md, late acknowledgments)"
	fi
	conf=$(with_late_floor "$conf")
	for v in "${!extra_vnets[@]}"; do
		extra_vnets[v]=${extra_vnets[v]%%:*}:$(with_late_floor "${extra_vnets[v]#*:}")
	done
	if [ -n "$key_file" ]; then
		# It goes into nicd's --vnet ID:KEYFILE:CONF, word by word.
		[[ "$key_file" =~ ^[^[:space:]:]+$ ]] ||
			die_usage "--key-file '$key_file': a path without spaces or ':' is needed"
		[ -r "$key_file" ] || die "--key-file $key_file: cannot read it"
		key_file=$(cd "$(dirname "$key_file")" && pwd)/$(basename "$key_file")
	fi
	if [ -n "$cores" ]; then
		[[ "$cores" =~ ^[0-9]+(,[0-9]+)*$ ]] ||
			die_usage "--cores must be a comma-separated list of CPU numbers, not '$cores'"
		local k
		for k in ${cores//,/ }; do
			# (not grep -q: its early exit would fail the pipeline by SIGPIPE)
			allowed_cpus | grep -x "$k" >/dev/null ||
				die_usage "--cores: CPU $k is not one this process may use ($(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status))"
		done
	fi
}

# ---------------------------------------------------------------- state file
#
# DIR/lab.state holds KEY=VALUE lines, appended as things are made, so that
# a failed or interrupted up leaves what down needs to undo it. A key given
# twice takes its last value. It is read as data, never executed.

state=

st_set() {
	printf '%s=%s\n' "$1" "$2" >>"$state"
}

st_get() {
	[ -f "$state" ] || return 0
	awk -v k="$1=" 'index($0, k) == 1 { v = substr($0, length(k) + 1) } END { print v }' "$state"
}

default_dir() {
	if [ "$(id -u)" = 0 ]; then
		echo "/run/segnet-lab/$name"
	else
		echo "${XDG_RUNTIME_DIR:-/tmp}/segnet-lab/$name"
	fi
}

# shellcheck source=scripts/lib/dpdk.sh
. "$top/scripts/lib/dpdk.sh"

# ---------------------------------------------------------------- binaries

switchd_bin=
nicd_bin=
stat_bin=

# find_bin NAME SUBDIR: the binary in the build directory, else on $PATH;
# an absolute path, so that a later command run from another directory
# (down, status) still recognises the processes by their binary.
find_bin() {
	local b=${builddir:-$top/build}
	if [ -x "$b/$2/$1" ]; then
		realpath "$b/$2/$1"
	elif [ -z "$builddir" ] && command -v "$1" >/dev/null 2>&1; then
		realpath "$(command -v "$1")"
	fi
}

find_bins() {
	switchd_bin=$(find_bin switchd switchd)
	nicd_bin=$(find_bin nicd nicd)
	stat_bin=$(find_bin segnet-stat nicd/tools)
	local missing=()
	[ -n "$switchd_bin" ] || missing+=(switchd)
	[ -n "$nicd_bin" ] || missing+=(nicd)
	[ -n "$stat_bin" ] || missing+=(segnet-stat)
	if [ ${#missing[@]} -gt 0 ]; then
		die "cannot find ${missing[*]} in ${builddir:-$top/build} or \$PATH: build first (scripts/setup.sh)"
	fi
}

# ---------------------------------------------------------------- helpers

# True when pid $1 is alive, not a zombie, and runs binary $2 (a PID that
# was reused by another program does not count).
pid_alive() {
	local pid=$1 bin=$2 st exe
	[ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
	st=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) || return 1
	[ "$st" != Z ] || return 1
	# Unreadable while the process exits (its memory is gone): dead.
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
	[ "${exe% (deleted)}" = "$(readlink -f "$bin")" ]
}

# The CPUs this process may run on, one per line.
allowed_cpus() {
	local list part a b
	list=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
	IFS=, read -r -a parts <<<"$list"
	for part in "${parts[@]}"; do
		if [[ "$part" == *-* ]]; then
			a=${part%-*}
			b=${part#*-}
			seq "$a" "$b"
		else
			echo "$part"
		fi
	done
}

# Slot length in ns at a bulk rate (2158 bytes on the wire per frame).
slot_ns() {
	awk -v g="$1" 'BEGIN { printf "%d", 2158 * 8 / g }'
}

# ---------------------------------------------------------------- layout
#
# Node i is on switchd port i. Nodes 0 .. N-K-1 share the nicd process
# "nicd"; each of the K last ones has its own, "nicd-nI". Each process gets
# a telemetry prefix segnet-lab-NAME-PROC; on veth, a network namespace
# segnet-lab-NAME-PROC too (switchd in segnet-lab-NAME-sw).

# Process that serves node $1.
node_proc() {
	if [ "$1" -ge $((nodes - solo)) ]; then
		echo "nicd-n$1"
	else
		echo nicd
	fi
}

# Nodes served by process $1.
proc_nodes() {
	local i
	if [ "$1" = nicd ]; then
		for ((i = 0; i < nodes - solo; i++)); do echo "$i"; done
	else
		echo "${1#nicd-n}"
	fi
}

# Every nicd process of the lab.
nicd_procs() {
	local i
	[ $((nodes - solo)) -gt 0 ] && echo nicd
	for ((i = nodes - solo; i < nodes; i++)); do echo "nicd-n$i"; done
	return 0
}

prefix_of() {
	echo "segnet-lab-$name-$1"
}

netns_of() {
	echo "segnet-lab-$name-$1"
}

# Frames a --fault SPEC ($1) makes each port hold for its delay (0: none).
delay_frames() {
	case ",$1," in
	*,delay-us=*)
		if [[ ",$1," =~ ,delay-frames=([0-9]+), ]]; then
			echo "${BASH_REMATCH[1]}"
		else
			echo 256	# the daemons' default
		fi
		;;
	*) echo 0 ;;
	esac
}

# EAL memory of process $1 (sw, nicd, nicd-nI; node for one node alone),
# in MB, at least 256: it grows with the nodes the process serves (its
# frame pools and device rings: 16 nodes on -m 256 failed; 10 MB per node
# for switchd and 16 for nicd brought 32 up) and with the frames its ports
# hold for a --fault delay (3 KB each; 3 queues per node in switchd, 2 in
# nicd).
mem_mb() {
	local n=1 per
	if [ "$1" = sw ]; then
		n=$nodes
		per=$((10 + 3 * $(delay_frames "$switch_fault") * 3 / 1024))
	else
		[ "$1" != nicd ] || n=$((nodes - solo))
		per=$((16 + 2 * $(delay_frames "$nicd_fault") * 3 / 1024))
	fi
	echo $((128 + n * per > 256 ? 128 + n * per : 256))
}

# EAL memory arguments of process $1.
eal_mem() {
	if [ "$huge" = 1 ]; then
		echo "-m $(mem_mb "$1") --huge-dir $dir/huge --single-file-segments"
	else
		echo "--no-huge -m $(mem_mb "$1")"
	fi
}

# The device name of node $1's port on switchd's side ($2 = sw) or on the
# node's (node), and its EAL --vdev.
dev_name() {
	case "$link/$2" in
	memif/*) echo "net_memif$1" ;;
	vhost/sw) echo "net_vhost$1" ;;
	vhost/node) echo "net_virtio_user$1" ;;
	veth/*) echo "net_af_packet$1" ;;
	esac
}

# virtio-user reports a link speed only when told one (speed=): nicd paces
# its QREQs at it (none: unpaced). 10 Gb/s, as net_vhost reports at the
# other end, and af_packet on veth; memif reports 100 Gb/s.
vdev_of() {
	local d
	d=$(dev_name "$1" "$2")
	case "$link/$2" in
	memif/sw) echo "$d,role=server,id=0,socket=$dir/links/sw$1.sock,socket-abstract=no,bsize=4096" ;;
	memif/node) echo "$d,role=client,id=0,socket=$dir/links/sw$1.sock,socket-abstract=no,bsize=4096" ;;
	vhost/sw) echo "$d,iface=$dir/links/vh$1.sock,queues=2" ;;
	vhost/node) echo "$d,path=$dir/links/vh$1.sock,queues=2,speed=10000" ;;
	veth/sw) echo "$d,iface=sw$1,framesz=2304,blocksz=36864" ;;
	veth/node) echo "$d,iface=n$1,framesz=2304,blocksz=36864" ;;
	esac
}

# switchd sends control frames on transmit queue 1 (a ring of its own on
# memif and vhost-user, so the nodes poll receive queue 1). af_packet has
# one queue pair here (two would fan received frames out over two sockets),
# so on veth everything goes on queue 0.
control_queue() {
	if [ "$link" = veth ]; then echo off; else echo on; fi
}

# Back-off arguments of both daemons: their defaults, or none with --busy.
idle_args() {
	if [ "$busy" = 1 ]; then echo "--idle-after-us 0"; fi
}

# What up was asked beyond the usual: ", grant lead 3, nicd fault loss=0.01".
extras() {
	[ "$grant_lead" = 1 ] || printf ', grant lead %s' "$grant_lead"
	[ "$nicd_first" = 0 ] || printf ', nicds started first'
	[ -z "$nicd_fault" ] || printf ', nicd fault %s' "$nicd_fault"
	[ -z "$switch_fault" ] || printf ', switchd fault %s' "$switch_fault"
}

# The vnet arguments of nicd.
vnet_args() {
	local v
	printf -- '--vnet 1:%s:%s' "$(st_get key.1)" "$conf"
	for v in "${extra_vnets[@]}"; do
		printf -- ' --vnet %s:%s:%s' "${v%%:*}" "$(st_get "key.${v%%:*}")" "${v#*:}"
	done
}

# Command line of process $1 (switchd or a nicd), one word per line.
proc_cmd() {
	local p=$1 core i
	core=$(st_get "proc.$p.core")
	if [ "$link" = veth ]; then
		printf '%s\n' ip netns exec "$(st_get "proc.$p.netns")"
	fi
	if [ "$p" = sw ]; then
		printf '%s\n' "$switchd_bin"
	else
		printf '%s\n' "$nicd_bin"
	fi
	# shellcheck disable=SC2046
	printf '%s\n' $(eal_mem "$p") --no-pci --no-shconf -l "$core" --file-prefix "$(prefix_of "$p")" \
		--log-level lib.telemetry:error --log-level lib.vhost.config:warning
	if [ "$p" = sw ]; then
		for ((i = 0; i < nodes; i++)); do printf '%s\n' --vdev "$(vdev_of "$i" sw)"; done
		printf '%s\n' -- --nodes "$nodes"
		for ((i = 0; i < nodes; i++)); do printf '%s\n' --port "$i=$(dev_name "$i" sw)"; done
		# shellcheck disable=SC2046
		printf '%s\n' --bulk-gbps "$bulk_gbps" --quick-gbps "$quick_gbps" \
			--down-slots "$(st_get down_slots)" --control-queue "$(control_queue)" \
			--grant-lead "$grant_lead" $(idle_args)
		[ -z "$switch_fault" ] || printf '%s\n' --fault "$switch_fault"
	else
		for i in $(proc_nodes "$p"); do printf '%s\n' --vdev "$(vdev_of "$i" node)"; done
		printf '%s\n' --
		for i in $(proc_nodes "$p"); do printf '%s\n' --node "n$i:$(dev_name "$i" node)"; done
		# shellcheck disable=SC2046
		printf '%s\n' $(vnet_args) --socket-dir "$dir/nicd" --control-queue "$(control_queue)" \
			--quick-gbps "$quick_gbps" $(idle_args)
		[ -z "$nicd_fault" ] || printf '%s\n' --fault "$nicd_fault"
	fi
}

# Start process $1 in the background, log in DIR/logs/$1.log; record its
# PID. It runs in a session of its own (setsid), so that a Ctrl-C or a
# SIGINT to the process group of whoever called lab.sh (a script that ran
# up, then was interrupted) does not reach the lab: down stops it. setsid
# execs without forking (a background job of a shell without job control
# does not lead its process group), and so does env, which gives the daemon
# the default signal dispositions (up's work ignores SIGINT, SIGTERM and
# SIGHUP, a background job SIGINT and SIGQUIT; an ignored one stays ignored
# across exec): the PID stays the daemon's. On veth, ip(8) enters the
# namespace and then execs the daemon. Returns once the PID runs the
# daemon's binary, so that it names the daemon when it is first checked
# (a few ms); 1, with a message, when it exited before (its status: env
# did not find the binary, say) or did not get there in
# start_timeout seconds (then it is killed).
start_proc() {
	local p=$1 args=() log="$dir/logs/$1.log" pid bin st deadline rc=0
	mapfile -t args < <(proc_cmd "$p")
	bin=$(readlink -f "$(proc_bin "$p")")
	echo "${args[*]}" >"$log"
	setsid env --default-signal=INT,QUIT,TERM,HUP "${args[@]}" </dev/null >>"$log" 2>&1 9<&- &
	pid=$!
	st_set "proc.$p.pid" "$pid"
	deadline=$((SECONDS + start_timeout))
	until [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$bin" ]; do
		# (gone once the shell reaped it; a zombie before)
		st=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) || st=
		if [ -z "$st" ] || [ "$st" = Z ]; then
			wait "$pid" || rc=$?
			echo "$prog: $(proc_title "$p") (pid $pid) exited with status $rc before it ran $bin" >&2
			show_log "$p"
			return 1
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			kill -KILL "$pid" 2>/dev/null || true
			echo "$prog: $(proc_title "$p") (pid $pid) did not run $bin within $start_timeout s; killed it" >&2
			show_log "$p"
			return 1
		fi
		sleep 0.01
	done
}

# Check every daemon's own arguments (--check: no EAL, nothing started), so
# that a value a daemon refuses (--conf, --fault) is a bad argument of up.
check_daemon_args() {
	local p args own out i
	for p in sw $(nicd_procs); do
		mapfile -t args < <(proc_cmd "$p")
		own=()
		for ((i = 0; i < ${#args[@]}; i++)); do
			[ "${args[i]}" = "--" ] && own=("${args[@]:i+1}") && break
		done
		out=$("$(proc_bin "$p")" -- "${own[@]}" --check 2>&1) ||
			die_usage "$(tail -n 1 <<<"$out")"
	done
}

# Start process $1 again after it stopped: a fresh EAL runtime directory,
# and its earlier log kept as logs/$1.runK.log.
start_again() {
	local log="$dir/logs/$1.log" k=1
	rm -rf "$(dpdk_runtime_dir "$(prefix_of "$1")")"
	if [ -f "$log" ]; then
		while [ -e "$dir/logs/$1.run$k.log" ]; do k=$((k + 1)); done
		mv "$log" "$dir/logs/$1.run$k.log"
	fi
	start_proc "$1"
}

# Load the configuration of an existing lab from its state file.
load_config() {
	local v
	link=$(st_get link)
	nodes=$(st_get nodes)
	solo=$(st_get solo)
	conf=$(st_get conf)
	bulk_gbps=$(st_get bulk_gbps)
	quick_gbps=$(st_get quick_gbps)
	busy=$(st_get busy)
	nicd_fault=$(st_get fault)
	switch_fault=$(st_get switch_fault)
	grant_lead=$(st_get grant_lead)
	grant_lead=${grant_lead:-1}
	huge=$(st_get huge)
	builddir=$(st_get builddir)
	extra_vnets=()
	for v in $(st_get vnets); do
		[ "${v%%:*}" = 1 ] || extra_vnets+=("$v")
	done
	switchd_bin=$(st_get bin.switchd)
	nicd_bin=$(st_get bin.nicd)
	stat_bin=$(st_get bin.stat)
}

# Binary of process $1.
proc_bin() {
	if [ "$1" = sw ]; then echo "$switchd_bin"; else echo "$nicd_bin"; fi
}

# What messages call process $1: switchd, or the nicd's own name.
proc_title() {
	if [ "$1" = sw ]; then echo switchd; else echo "$1"; fi
}

# Print the last lines of a process's log.
show_log() {
	local log="$dir/logs/$1.log"
	[ -f "$log" ] || return 0
	echo "--- $1 (last lines of $log)" >&2
	tail -n 15 "$log" >&2
}

# ---------------------------------------------------------------- telemetry

# One sample of a daemon's counters, name value lines (zeros included).
tel() {
	"$stat_bin" --prefix "$1" --once --all --cmd "$2" 2>/dev/null || true
}

# Nodes switchd has up, or nothing when it cannot be read.
sw_nodes_up() {
	tel "$(prefix_of sw)" /segnet/switch/stats | awk '$1 == "switch.stats.nodes_up" { print $2 }'
}

# switch.nodes.nodeI.up for node $1 (0 or 1), or nothing.
sw_node_up() {
	tel "$(prefix_of sw)" "/segnet/switch/nodes,$1" |
		awk -v k="switch.nodes.$1.node$1.up" '$1 == k { print $2 }'
}

# ---------------------------------------------------------------- up

# Refuse to run when the lab is up; tear down what a dead one left. Runs
# in a subshell: the old lab's configuration must not replace the new one.
check_not_up() {
	local rc=0
	[ -f "$state" ] || return 0
	(
		load_config
		for p in sw $(nicd_procs); do
			pid_alive "$(st_get "proc.$p.pid")" "$(proc_bin "$p")" && exit 3
		done
		say "lab '$name': cleaning up what a previous run left in $dir"
		keep_dir=1
		teardown >/dev/null
	) || rc=$?
	[ "$rc" != 3 ] ||
		die "lab '$name' is already up in $dir (scripts/lab.sh status$(name_opts); scripts/lab.sh down$(name_opts) first)"
	[ "$rc" = 0 ] || die "could not clean up what a previous run left in $dir"
}

# What up made, for up_exit: DIR, and the highest folder mkdir -p made for
# it (DIR itself, or a parent that was not there), the state file.
dir_made=0
made_top=
up_started=0
# Set once the daemons' arguments passed their --check: before that a
# failure is a refusal (exit 2), which says only why, though up_exit
# still removes the state file and keys up wrote.
up_checked=0

# On a failed or interrupted up: undo what was made, and only that (a
# --dir the user gave stays, a refusal before anything started says only
# why). A second signal does not cut the teardown short (up's work ignores
# signals). A failure after a signal (a command it stopped) is the signal's.
# Status 0 here is a signal the work does not ignore (its normal end resets
# this trap; bash gives the EXIT trap of a signal the last command's
# status): SIGPIPE, up's output closed (lab.sh up | head -1), which is no
# interrupt; the work ends by it after this trap.
up_exit() {
	local rc=$? why=failed
	if sig_got; then
		rc=$sig_status
		why=interrupted
		[ "$sig_name" != KILL ] || why="interrupted: its shell was killed"
	elif [ "$rc" = 0 ]; then
		why="ended by a signal (SIGPIPE if its output was closed)"
	elif [ "$rc" -ge 128 ]; then
		why=interrupted
	fi
	if [ "$up_started" = 1 ]; then
		[ "$up_checked" = 0 ] && ! sig_got ||
			echo "$prog: up $why; tearing down what it started" >&2
		[ "$dir_made" = 1 ] || keep_dir=1
		teardown >/dev/null || true
	fi
	# (not empty while another lab is in it; errexit must not take rc's place)
	if [ "$dir_made" = 1 ]; then
		# (teardown may have removed DIR; a folder not empty stops it)
		local d=$dir
		while { rmdir "$d" 2>/dev/null || [ ! -e "$d" ]; } && [ "$d" != "${made_top:-$dir}" ]; do
			d=$(dirname "$d")
		done
	fi
	exit "$rc"
}

# True when every process of the lab that stop-node did not stop is alive;
# otherwise says which one is not, with its log.
all_alive() {
	local p pid
	for p in sw $(nicd_procs); do
		[ "$(st_get "proc.$p.stopped")" = 1 ] && continue
		pid=$(st_get "proc.$p.pid")
		pid_alive "$pid" "$(proc_bin "$p")" && continue
		echo "$prog: $p (pid $pid) exited" >&2
		show_log "$p"
		return 1
	done
}

# Refuse names another lab (in another directory) is using.
check_names_free() {
	local p ns rd
	for p in sw $(nicd_procs); do
		rd=$(dpdk_runtime_dir "$(prefix_of "$p")")
		if [ -S "$rd/dpdk_telemetry.v2" ] &&
		   "$stat_bin" --socket "$rd/dpdk_telemetry.v2" --once >/dev/null 2>&1; then
			die "telemetry prefix $(prefix_of "$p") is in use (a lab named '$name' in another directory?): pick another --name"
		fi
		if [ "$link" = veth ]; then
			ns=$(netns_of "$p")
			if ip netns list 2>/dev/null | awk '{ print $1 }' | grep -qx "$ns"; then
				die "network namespace $ns exists (a lab named '$name' in another directory?): pick another --name, or ip netns del $ns"
			fi
		fi
	done
}

# Reserve hugepages and mount hugetlbfs in DIR/huge.
setup_huge() {
	local p before free want got
	want=$(( $(mem_mb sw) / 2 + 16 ))	# -m of 2 MiB pages per process, and slack
	for p in $(nicd_procs); do
		want=$((want + $(mem_mb "$p") / 2))
	done
	[ -w /proc/sys/vm/nr_hugepages ] || die "--huge: cannot reserve hugepages (not root?)"
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	before=$(cat /proc/sys/vm/nr_hugepages)
	if [ "$free" -lt "$want" ]; then
		echo $((before + want - free)) >/proc/sys/vm/nr_hugepages
		got=$(cat /proc/sys/vm/nr_hugepages)
		st_set huge.added $((got - before))
		free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
		[ "$free" -ge "$want" ] ||
			die "--huge: only $free free 2 MiB hugepages after asking for $want (memory fragmented?)"
	fi
	mkdir -p "$dir/huge"
	mount -t hugetlbfs -o pagesize=2M nodev "$dir/huge" || die "--huge: cannot mount hugetlbfs on $dir/huge"
	st_set huge.mount "$dir/huge"
	say "hugepages: $want pages of 2 MiB for $(( 1 + $(nicd_procs | wc -l) )) processes on $dir/huge ($(st_get huge.added) reserved by this lab)"
}

# Network namespaces and veth pairs: switchd's ends swI in its namespace,
# node I's end nI in the namespace of the nicd that serves it.
setup_veth() {
	local p ns i sw_ns
	for p in sw $(nicd_procs); do
		ns=$(netns_of "$p")
		ip netns add "$ns" || die "cannot create network namespace $ns"
		st_set netns "$(st_get netns) $ns"
		ip -n "$ns" link set lo up
	done
	sw_ns=$(netns_of sw)
	for ((i = 0; i < nodes; i++)); do
		sig_check
		ns=$(netns_of "$(node_proc "$i")")
		ip -n "$sw_ns" link add "sw$i" type veth peer name "n$i" netns "$ns" ||
			die "cannot create veth pair sw$i/n$i"
		# A full BREQ is 2134 bytes; IPv6 would send neighbour discovery.
		ip netns exec "$sw_ns" sysctl -qw "net.ipv6.conf.sw$i.disable_ipv6=1" 2>/dev/null || true
		ip netns exec "$ns" sysctl -qw "net.ipv6.conf.n$i.disable_ipv6=1" 2>/dev/null || true
		ip -n "$sw_ns" link set "sw$i" mtu 2200 up
		ip -n "$ns" link set "n$i" mtu 2200 up
	done
}

# Random key file $1, readable by the user who ran sudo (if any).
make_key() {
	(umask 077 && head -c 24 /dev/urandom | base64 | tr -d '/+=\n' >"$1")
	if [ "$(id -u)" = 0 ] && [ -n "${SUDO_UID:-}" ]; then
		chown "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$1"
	fi
}

# The CPUs of switchd and of the nicds; prints "SW NIC1 NIC2 ...".
place() {
	local list=() n k p
	if [ -n "$cores" ]; then
		IFS=, read -r -a list <<<"$cores"	# checked with the arguments
	else
		mapfile -t list < <(allowed_cpus)
	fi
	n=${#list[@]}
	st_set cpus "${list[*]}"
	st_set proc.sw.core "${list[0]}"
	k=1
	for p in $(nicd_procs); do
		if [ "$n" -eq 1 ]; then
			st_set "proc.$p.core" "${list[0]}"
		else
			st_set "proc.$p.core" "${list[$(( (k - 1) % (n - 1) + 1 ))]}"
		fi
		k=$((k + 1))
	done
}

# Wait up to $2 tenths of a second for file $1 while process $3 lives.
wait_file() {
	local i=0
	while [ ! -e "$1" ] && [ "$i" -lt "$2" ]; do
		sig_check
		pid_alive "$(st_get "proc.$3.pid")" "$(proc_bin "$3")" || return 1
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$1" ]
}

# Wait for switchd's ports to exist before nodes connect to them.
wait_switchd() {
	local i
	case "$link" in
	memif|vhost)
		for ((i = 0; i < nodes; i++)); do
			wait_file "$dir/links/$([ "$link" = memif ] && echo sw || echo vh)$i.sock" 100 sw ||
				return 1
		done
		;;
	veth)
		for ((i = 0; i < 100; i++)); do
			sig_check
			grep -q "^switchd: polling on CPU" "$dir/logs/sw.log" 2>/dev/null && return 0
			pid_alive "$(st_get proc.sw.pid)" "$switchd_bin" || return 1
			sleep 0.1
		done
		return 1
		;;
	esac
}

# Start every nicd.
start_nicds() {
	local p
	for p in $(nicd_procs); do
		start_proc "$p" || return 1
	done
}

# Wait for every nicd to come up without switchd (--nicd-first): its
# control sockets open.
wait_nicds() {
	local p i
	for p in $(nicd_procs); do
		for i in $(proc_nodes "$p"); do
			wait_file "$dir/nicd/n$i.sock" 100 "$p" && continue
			echo "$prog: $p did not come up before switchd" >&2
			show_log "$p"
			return 1
		done
	done
}

# Wait until every node has joined: switchd has them all up and each nicd
# is up with its node id. $1: the nodes to wait for (default all but those
# stop-node stopped).
wait_join() {
	local want=${1:-all} deadline p pid i ok up id
	deadline=$(( $(date +%s) + join_timeout ))
	while :; do
		sig_check
		all_alive || return 1
		ok=1
		for ((i = 0; i < nodes; i++)); do
			[ "$want" = all ] || [ "$want" = "$i" ] || continue
			p=$(node_proc "$i")
			[ "$want" = "$i" ] || [ "$(st_get "proc.$p.stopped")" != 1 ] || continue
			up=$(sw_node_up "$i")
			# node_id, and "up" (a node that lost its switch keeps its id).
			id=$(tel "$(prefix_of "$p")" "/segnet/nic/stats,n$i" |
				awk -v k="nic.stats.n$i." '$1 == k "node_id" { id = $2 } $1 == k "up" { up = $2 }
					END { if (up == 1) print id }')
			if [ "$up" != 1 ] || [ "$id" != "$i" ]; then
				ok=0
				break
			fi
		done
		# (a process that died while the nodes were read must not pass)
		[ "$ok" = 1 ] && { all_alive || return 1; return 0; }
		if [ "$(date +%s)" -ge "$deadline" ]; then
			echo "$prog: node n$i has not joined after ${join_timeout}s (switchd: up=${up:-?}; nicd: node_id=${id:-?})" >&2
			show_log sw
			show_log "$p"
			return 1
		fi
		sleep 0.1
	done
}

do_up() {
	local slot down_slots
	if [ "$link" = veth ] && [ "$(id -u)" != 0 ]; then
		die "--link veth needs root (network namespaces, veth pairs, af_packet sockets); --link memif needs no privileges"
	fi
	if [ "$huge" = 1 ] && [ "$(id -u)" != 0 ]; then
		die "--huge needs root (it reserves hugepages and mounts hugetlbfs); without it the lab runs on --no-huge memory"
	fi
	if [ "$link" = veth ] && ! command -v ip >/dev/null 2>&1; then
		die "--link veth needs ip(8) (apt-get install iproute2)"
	fi
	slot=$(slot_ns "$bulk_gbps")
	down_slots=$(( (down_ms * 1000000 + slot - 1) / slot ))
	[ "$down_slots" -ge 16 ] ||
		die_usage "--down-ms $down_ms is only $down_slots slots of $slot ns: nodes send a CFG every 8 slots; give at least $(( 16 * slot / 1000000 + 1 )) ms"
	find_bins
	[ ! -e "$dir" ] || [ -d "$dir" ] || die_usage "--dir $dir is not a directory"
	# Names another lab uses: refused before anything is made (a lab in DIR
	# itself is check_not_up's).
	[ -f "$state" ] || check_names_free
	# up's signals (INT, TERM, HUP, QUIT) go to this shell, which only
	# waits for the work (lib/signals.sh): the work looks for them between
	# steps and in its waits, then tears down what it started.
	sig_run lab-up up_work
}

# up's work, in a child of up that ignores signals (do_up): make DIR, write
# the state file, set up and start the lab, wait for it.
up_work() {
	local p i v
	trap up_exit EXIT
	sig_check
	if [ ! -e "$dir" ]; then
		# Every folder mkdir -p makes, not the first parent alone: a failed
		# up removes them all (--dir /tmp/a/b/lab without /tmp/a).
		made_top=$dir
		while [ ! -e "$(dirname "$made_top")" ]; do made_top=$(dirname "$made_top"); done
		mkdir -p "$(dirname "$dir")" 2>/dev/null || die "cannot create $dir (not root? give --dir)"
		# Not -p: DIR is up's only when this mkdir made it, not another
		# lab.sh a moment before (whose DIR up_exit must not remove).
		if mkdir "$dir" 2>/dev/null; then
			dir_made=1
		else
			[ -d "$dir" ] || die "cannot create $dir (not root? give --dir)"
			made_top=
		fi
	fi
	exec 9<"$dir"
	flock -n 9 || die "another lab.sh is working on $dir"
	# DIR of a lab that died is as much up's as that lab's was (a state
	# file without dir_made: up made it).
	local prev_made=0
	if [ -f "$state" ]; then
		prev_made=$(st_get dir_made)
		prev_made=${prev_made:-1}
	fi
	check_not_up
	[ "$prev_made" = 0 ] || dir_made=1
	# Teardown removes DIR's logs/, links/ and nicd/: never in a folder of the user's.
	[ -z "$(ls -A "$dir")" ] ||
		die_usage "--dir $dir is not empty and holds no lab: give a new or empty directory"
	check_names_free
	sig_check

	up_started=1
	: >"$state"
	st_set name "$name"
	st_set dir "$dir"
	st_set dir_made "$dir_made"
	st_set state starting
	st_set link "$link"
	st_set nodes "$nodes"
	st_set solo "$solo"
	st_set conf "$conf"
	st_set bulk_gbps "$bulk_gbps"
	st_set quick_gbps "$quick_gbps"
	st_set slot_ns "$slot"
	st_set down_ms "$down_ms"
	st_set down_slots "$down_slots"
	st_set busy "$busy"
	st_set fault "$nicd_fault"
	st_set switch_fault "$switch_fault"
	st_set grant_lead "$grant_lead"
	st_set huge "$huge"
	st_set builddir "$builddir"
	st_set bin.switchd "$switchd_bin"
	st_set bin.nicd "$nicd_bin"
	st_set bin.stat "$stat_bin"
	# Prefixes before the process list: a teardown goes by the list.
	for p in sw $(nicd_procs); do
		st_set "proc.$p.prefix" "$(prefix_of "$p")"
		[ "$link" = veth ] && st_set "proc.$p.netns" "$(netns_of "$p")"
	done
	st_set procs "sw $(nicd_procs | tr '\n' ' ')"
	mkdir -p "$dir/logs" "$dir/links" "$dir/nicd"

	# Keys: vnet 1 from --key-file or random; every other vnet random.
	if [ -n "$key_file" ]; then
		st_set key.1 "$key_file"
	else
		make_key "$dir/vnet1.key"
		st_set key.1 "$dir/vnet1.key"
	fi
	v="1:$conf"
	for i in "${extra_vnets[@]}"; do
		make_key "$dir/vnet${i%%:*}.key"
		st_set "key.${i%%:*}" "$dir/vnet${i%%:*}.key"
		v="$v $i"
	done
	st_set vnets "$v"

	place
	check_daemon_args
	up_checked=1
	sig_check
	if [ "$huge" = 1 ]; then setup_huge; fi
	sig_check
	if [ "$link" = veth ]; then setup_veth; fi
	sig_check

	if [ "$nicd_first" = 1 ]; then
		start_nicds || exit 1
		wait_nicds || exit 1
		say "nicd up before switchd: the nodes join once switchd is there"
	fi
	sig_check
	start_proc sw || exit 1
	if ! wait_switchd; then
		echo "$prog: switchd did not come up" >&2
		show_log sw
		exit 1
	fi
	[ "$nicd_first" = 1 ] || start_nicds || exit 1
	sig_check
	wait_join || exit 1
	all_alive || exit 1
	# Up from here: a signal later is not looked for (it would tear down a
	# lab that is up, after every check passed); the rest only prints.
	sig_check
	st_set state up
	trap - EXIT
	print_placement
	say "all $nodes nodes joined; see: scripts/lab.sh status$(name_opts)"
	print_env_hint
}

# Where DIR came from, when it was the environment's: for "not up" messages.
env_note() {
	[ "$dir_from_env" = 0 ] ||
		printf '; SEGNET_LAB_DIR names it: give --name or --dir for another lab'
}

# The --name/--dir options that name this lab again, for printed commands.
name_opts() {
	local o=
	[ "$name" = lab ] || o=" --name $name"
	[ "$dir" = "$(default_dir)" ] || o="$o --dir $dir"
	echo "$o"
}

print_placement() {
	local p nl
	say "lab '$name': $link, $nodes nodes, vnet 1 $conf, bulk $bulk_gbps Gbit/s (slot $(awk -v s="$(st_get slot_ns)" 'BEGIN { printf "%.1f", s / 1000 }') us), quick $quick_gbps Gbit/s, down after $(st_get down_ms) ms, back-off $([ "$busy" = 1 ] && echo off || echo on)$(extras)"
	say "placement (CPUs $(st_get cpus)):"
	for p in sw $(nicd_procs); do
		if [ "$p" = sw ]; then
			nl="ports 0..$((nodes - 1))"
		else
			nl="nodes$(proc_nodes "$p" | sed 's/^/ n/' | tr -d '\n')"
		fi
		printf '  %-12s CPU %-3s pid %-8s %-24s telemetry prefix %s%s\n' \
			"$(proc_title "$p")" "$(st_get "proc.$p.core")" \
			"$(st_get "proc.$p.pid")" "$nl" "$(prefix_of "$p")" \
			"$([ "$link" = veth ] && echo ", netns $(netns_of "$p")")"
	done
	echo "  applications unpinned (they sleep in segnet_wait)"
}

print_env_hint() {
	local v
	echo "  export SEGNET_SOCKET_DIR=$dir/nicd"
	for v in $(st_get vnets); do
		echo "  vnet ${v%%:*} (${v#*:}): key file $(st_get "key.${v%%:*}")"
	done
	echo "  e.g. segnet-ping --nicd n1 --key-file $(st_get key.1) --server &"
	echo "       segnet-ping --nicd n0 --key-file $(st_get key.1) --node 1 --count 5"
}

# ---------------------------------------------------------------- down

# Wait up to 5 s for an exiting pid $1 to be gone (or a zombie). A live
# process with a readable binary is another program that took the PID.
wait_gone() {
	local i
	for ((i = 0; i < 50; i++)); do
		[ -d "/proc/$1" ] || return 0
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ] || return 0
		readlink "/proc/$1/exe" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# Stop process $1: SIGTERM, then SIGKILL after the timeout. 0 when it is gone.
stop_proc() {
	local p=$1 pid bin i
	pid=$(st_get "proc.$p.pid")
	bin=$(proc_bin "$p")
	[ -n "$pid" ] || return 0
	pid_alive "$pid" "$bin" || { wait_gone "$pid" || true; return 0; }
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < stop_timeout * 10; i++)); do
		pid_alive "$pid" "$bin" || { wait_gone "$pid" || true; return 0; }
		sleep 0.1
	done
	echo "$prog: $p (pid $pid) still running after ${stop_timeout}s: SIGKILL" >&2
	kill -KILL "$pid" 2>/dev/null || true
	pid_alive "$pid" "$bin" && sleep 0.1
	wait_gone "$pid" && return 0
	echo "$prog: $p (pid $pid) does not die" >&2
	return 1
}

# Undo everything the state file records; prints what it checked. 0 when
# nothing is left.
teardown() {
	local p ns mnt added cur i bad=0 procs pfx
	[ -f "$state" ] || return 0
	load_config
	procs=$(st_get procs)
	# A --dir that was there before up (empty) is the user's: it stays.
	[ "$(st_get dir_made)" != 0 ] || keep_dir=1
	# Applications first see their nicd go, then the nodes see switchd go.
	for p in $procs; do
		[ "$p" = sw ] && continue
		stop_proc "$p" || bad=1
	done
	stop_proc sw || bad=1
	for ns in $(st_get netns); do
		ip netns del "$ns" 2>/dev/null || true
		if ip netns list 2>/dev/null | awk '{ print $1 }' | grep -qx "$ns"; then
			echo "$prog: network namespace $ns is still there" >&2
			bad=1
		fi
	done
	mnt=$(st_get huge.mount)
	if [ -n "$mnt" ]; then
		umount "$mnt" 2>/dev/null || true
		if mountpoint -q "$mnt"; then
			echo "$prog: $mnt is still mounted" >&2
			bad=1
		fi
	fi
	added=$(st_get huge.added)
	if [ -n "$added" ] && [ "$added" -gt 0 ]; then
		cur=$(cat /proc/sys/vm/nr_hugepages)
		echo $((cur > added ? cur - added : 0)) >/proc/sys/vm/nr_hugepages || true
	fi
	for p in $procs; do
		pfx=$(st_get "proc.$p.prefix")
		# An up killed early may have recorded none: never rm the whole runtime dir.
		[ -n "$pfx" ] || pfx=$(prefix_of "$p")
		[ -n "$pfx" ] && rm -rf "$(dpdk_runtime_dir "$pfx")"
	done
	# Keys we made; a --key-file is the user's.
	for i in $(st_get vnets); do
		[ "$(st_get "key.${i%%:*}")" = "$dir/vnet${i%%:*}.key" ] && rm -f "$dir/vnet${i%%:*}.key"
	done
	[ -n "$mnt" ] && rmdir "$mnt" 2>/dev/null
	rm -rf "$dir/links" "$dir/nicd" "$dir/logs"
	rm -f "$state"
	if [ "$keep_dir" != 1 ]; then
		rmdir "$dir" 2>/dev/null || true
		# The default parent (/run/segnet-lab) goes when no lab is left in it.
		[ "$dir" = "$(default_dir)" ] && rmdir "$(dirname "$dir")" 2>/dev/null
	fi
	verify_gone "$procs" || bad=1
	return $bad
}

# Check that nothing the lab made is left; print what was checked.
verify_gone() {
	local procs=$1 p left=()
	for p in $procs; do
		[ -e "$(dpdk_runtime_dir "$(prefix_of "$p")")" ] && left+=("$(dpdk_runtime_dir "$(prefix_of "$p")")")
		[ "$link" = veth ] && ip netns list 2>/dev/null | awk '{ print $1 }' |
			grep -qx "$(netns_of "$p")" && left+=("netns $(netns_of "$p")")
	done
	[ "$keep_dir" = 1 ] || [ ! -e "$dir" ] || left+=("$dir")
	if [ ${#left[@]} -gt 0 ]; then
		echo "$prog: left behind: ${left[*]}" >&2
		return 1
	fi
	echo "$prog: checked: no process, link socket, control socket, key, log, namespace (veths with it), hugepage mount or EAL runtime directory of lab '$name' left"
}

do_down() {
	# (and the folders of ups whose shell was killed: up does it too)
	sig_clean lab-up
	if [ ! -f "$state" ]; then
		say "lab '$name' is not up (no $state$(env_note)): nothing to do"
		return 0
	fi
	exec 9<"$dir"
	flock -w 30 9 || die "another lab.sh is working on $dir"
	load_config
	say "stopping lab '$name' ($link, $nodes nodes)"
	if teardown; then
		say "lab '$name' is down$([ "$keep_dir" = 1 ] && echo " ($dir stays: it was there before up)")"
	else
		die "lab '$name': some things could not be removed (see above)"
	fi
}

# ---------------------------------------------------------------- status

do_status() {
	local p pid alive=0 dead=0 i up id eps bad=0 cmds
	if [ ! -f "$state" ]; then
		say "lab '$name' is not up (no $state$(env_note))"
		exit 1
	fi
	load_config
	local up_n
	say "lab '$name' in $dir: $(st_get state), $link, $nodes nodes, bulk $bulk_gbps Gbit/s, quick $quick_gbps Gbit/s, back-off $([ "$busy" = 1 ] && echo off || echo on)$(extras)"
	echo "processes:"
	for p in $(st_get procs); do
		pid=$(st_get "proc.$p.pid")
		if pid_alive "$pid" "$(proc_bin "$p")"; then
			printf '  %-12s pid %-8s alive    CPU %-3s (affinity %s)  prefix %s\n' \
				"$(proc_title "$p")" "$pid" \
				"$(st_get "proc.$p.core")" \
				"$(taskset -pc "$pid" 2>/dev/null | sed 's/.*: //')" "$(prefix_of "$p")"
			alive=$((alive + 1))
		else
			printf '  %-12s pid %-8s %s\n' "$(proc_title "$p")" \
				"${pid:--}" "$([ "$(st_get "proc.$p.stopped")" = 1 ] && echo "stopped (stop-node)" || echo DEAD)"
			[ "$(st_get "proc.$p.stopped")" = 1 ] || dead=$((dead + 1))
			bad=1
		fi
	done
	up_n=$(sw_nodes_up || true)
	if [ -n "$up_n" ]; then
		echo "nodes (switchd: $up_n of $nodes up):"
	else
		echo "nodes (switchd does not answer: not running?):"
	fi
	[ "$dead" = 0 ] || say "$dead process(es) of the lab died: scripts/lab.sh down, then up again (or start-node / restart-switchd)"
	for ((i = 0; i < nodes; i++)); do
		p=$(node_proc "$i")
		up=$(sw_node_up "$i" || true)
		id=$(tel "$(prefix_of "$p")" "/segnet/nic/stats,n$i" |
			awk -v k="nic.stats.n$i." '
				index($1, k) == 1 { n = substr($1, length(k) + 1); v[n] = $2 }
				END { printf "%s %s", (("node_id" in v) ? v["node_id"] : "-"), (("endpoints_open" in v) ? v["endpoints_open"] : "-") }')
		eps=${id#* }
		id=${id% *}
		if [ "$up" = 1 ] && [ "$id" = "$i" ]; then
			printf '  n%-3s joined as node %s  (%s, control socket %s, %s endpoint(s) open)\n' \
				"$i" "$id" "$p" "$dir/nicd/n$i.sock" "$eps"
		else
			printf '  n%-3s NOT joined (switchd up=%s, nicd node_id=%s; %s)\n' "$i" "${up:-?}" "${id:--}" "$p"
			bad=1
		fi
	done
	echo "to use it:"
	print_env_hint
	cmds=$(for p in $(st_get procs); do printf '; segnet-stat --prefix %s' "$(prefix_of "$p")"; done)
	echo "  counters: ${cmds#; }"
	return $bad
}

do_env() {
	local v
	[ -f "$state" ] || die "lab '$name' is not up (no $state$(env_note))"
	echo "export SEGNET_SOCKET_DIR=$dir/nicd"
	echo "export SEGNET_LAB_DIR=$dir"
	echo "export SEGNET_LAB_KEY=$(st_get key.1)"
	for v in $(st_get vnets); do
		echo "export SEGNET_LAB_KEY_${v%%:*}=$(st_get "key.${v%%:*}")"
	done
	echo "export SEGNET_LAB_SWITCHD_PREFIX=$(prefix_of sw)"
	[ "$(st_get solo)" = "$(st_get nodes)" ] ||
		echo "export SEGNET_LAB_NICD_PREFIX=$(prefix_of nicd)"
}

# ---------------------------------------------------------------- nodes

# The solo process of node NODE ("n2"), or die.
solo_proc_of() {
	local i=${node_arg#n}
	# (up takes at most 32 nodes: no number too long for test(1) gets there)
	[ ${#i} -le 2 ] && [ "$i" -lt "$nodes" ] ||
		die_usage "no node '$node_arg' in lab '$name' (n0 .. n$((nodes - 1)))"
	p=$(node_proc "$i")
	[ "$p" != nicd ] ||
		die "$node_arg shares its nicd with other nodes: bring the lab up with --solo K to stop and start the last K nodes alone"
	echo "$p"
}

do_stop_node() {
	local p
	[ -f "$state" ] || die "lab '$name' is not up (no $state$(env_note))"
	load_config
	p=$(solo_proc_of)
	[ "$(st_get "proc.$p.stopped")" != 1 ] || die "$node_arg is stopped already ($p)"
	stop_proc "$p" || die "cannot stop $p"
	st_set "proc.$p.stopped" 1
	say "$node_arg stopped ($p); switchd marks it down after $(st_get down_ms) ms"
}

do_start_node() {
	local p i=${node_arg#n}
	[ -f "$state" ] || die "lab '$name' is not up (no $state$(env_note))"
	load_config
	p=$(solo_proc_of)
	if pid_alive "$(st_get "proc.$p.pid")" "$nicd_bin"; then
		die "$node_arg is running already ($p, pid $(st_get "proc.$p.pid"))"
	fi
	start_again "$p" || die "$node_arg did not start (log: $dir/logs/$p.log)"
	st_set "proc.$p.stopped" 0
	wait_join "$i" || die "$node_arg did not join again (log: $dir/logs/$p.log)"
	say "$node_arg started ($p, pid $(st_get "proc.$p.pid"), CPU $(st_get "proc.$p.core")) and joined"
}

do_attach() {
	local p i=${node_arg#n}
	[ -f "$state" ] || die "lab '$name' is not up (no $state$(env_note))"
	load_config
	p=$(solo_proc_of)
	if pid_alive "$(st_get "proc.$p.pid")" "$nicd_bin"; then
		die "$node_arg is running ($p): scripts/lab.sh stop-node $node_arg first"
	fi
	# Shell assignments (values quoted): eval "$(scripts/lab.sh attach n2)".
	printf 'netns=%q\n' "$([ "$link" = veth ] && netns_of "$p")"
	printf 'vdev=%q\n' "$(vdev_of "$i" node)"
	printf 'port=%q\n' "$(dev_name "$i" node)"
	printf 'eal=%q\n' "$(eal_mem node) --no-pci --no-shconf"
	printf 'control_queue=%q\n' "$(control_queue)"
	printf 'slot_ns=%s\n' "$(st_get slot_ns)"
}

# ---------------------------------------------------------------- switchd

# Stop switchd and start it again with the same command line, as an
# operator restarting the switch (or after it died); then wait for every
# running node to join it again. nicd restarts the ports of memif clients
# and creates its virtio-user clients again itself; af_packet links stay
# up.
do_restart_switchd() {
	local p t0 i
	[ -f "$state" ] || die "lab '$name' is not up (no $state$(env_note))"
	exec 9<"$dir"
	flock -w 30 9 || die "another lab.sh is working on $dir"
	load_config
	# Only switchd is restarted: a nicd that died (not stop-node) stays dead.
	for p in $(nicd_procs); do
		[ "$(st_get "proc.$p.stopped")" = 1 ] && continue
		pid_alive "$(st_get "proc.$p.pid")" "$nicd_bin" ||
			die "$p is not running (pid $(st_get "proc.$p.pid")): restart-switchd restarts switchd only; scripts/lab.sh down, then up"
	done
	t0=$(date +%s.%N)
	stop_proc sw || die "cannot stop switchd"
	# A switchd that was killed leaves its sockets: the new one must bind them.
	for ((i = 0; i < nodes; i++)); do
		rm -f "$dir/links/sw$i.sock" "$dir/links/vh$i.sock"
	done
	start_again sw || die "switchd did not start again (log: $dir/logs/sw.log)"
	wait_switchd || { show_log sw; die "switchd did not start again (log: $dir/logs/sw.log)"; }
	wait_join || die "the nodes did not join the restarted switchd (logs: $dir/logs)"
	say "switchd restarted (pid $(st_get proc.sw.pid)); every running node joined it again $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s after the stop began"
}

# ---------------------------------------------------------------- main

parse_args "$@"
check_args
# The lab of the environment (eval "$(scripts/lab.sh env)" exports
# SEGNET_LAB_DIR) unless --name or --dir names one; up makes a new lab and
# goes by --name and --dir alone.
# (where DIR came from, for a message about it)
dir_src=--dir
if [ -z "$dir" ] && [ "$name_given" = 0 ] && [ "$cmd" != up ] && [ -n "${SEGNET_LAB_DIR:-}" ]; then
	dir=$SEGNET_LAB_DIR
	dir_from_env=1
	dir_src="SEGNET_LAB_DIR (the lab of the environment; give --name or --dir for another)"
fi
[ -n "$dir" ] || dir_src="the default directory of lab '$name' (give --dir)"
dir=${dir:-$(default_dir)}
dir=$(realpath -m "$dir")
# The directory goes into EAL device arguments and socket paths (at most
# 107 bytes): no commas, spaces or other separators.
[[ "$dir" =~ ^[A-Za-z0-9_./-]+$ ]] && [ ${#dir} -le 80 ] ||
	die_usage "$dir_src must be a path of at most 80 letters, digits, _ . / -, not '$dir'"
state=$dir/lab.state
# A lab found by --dir goes by the name it was brought up with.
if [ -f "$state" ] && [ -n "$(st_get name)" ] && [ "$(st_get name)" != "$name" ]; then
	[ "$name_given" = 0 ] ||
		die_usage "--name $name: the lab in $dir is called '$(st_get name)'"
	name=$(st_get name)
fi

case "$cmd" in
up) do_up ;;
down) do_down ;;
status) do_status ;;
env) do_env ;;
stop-node) do_stop_node ;;
start-node) do_start_node ;;
attach) do_attach ;;
restart-switchd) do_restart_switchd ;;
esac
