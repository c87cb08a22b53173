#!/usr/bin/env bash
# Install every build, test and tool dependency of segnet on Debian 12, then
# configure and build into build/. Idempotent: a second run only rebuilds.
#
#   scripts/setup.sh [--no-build] [--builddir DIR] [--werror]
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir="$top/build"
do_build=1
werror=false

prog=setup.sh
synopsis="scripts/setup.sh [--no-build] [--builddir DIR] [--werror]"
# shellcheck source=scripts/lib/cli.sh
. "$top/scripts/lib/cli.sh"

while [ $# -gt 0 ]; do
	case "$1" in
	--no-build) do_build=0 ;;
	--builddir) [ $# -ge 2 ] || { echo "setup.sh: --builddir needs a directory" >&2; exit 2; }
		builddir=$2; shift ;;
	--werror) werror=true ;;
	-h|--help) usage; exit 0 ;;
	*) echo "setup.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
	shift
done

# Build and library packages, then test and tool packages.
packages=(
	build-essential pkg-config meson ninja-build
	libdpdk-dev dpdk dpdk-dev libpcap-dev libcriterion-dev libnuma-dev
	clang libclang-rt-14-dev
	tshark tcpreplay sockperf iperf3 valgrind gnuplot-nox python3-matplotlib
	gdb strace
	iproute2 procps psmisc kmod util-linux
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup.sh: these packages are missing and installing them needs root: ${missing[*]}" >&2
		echo "setup.sh: run it again as root (sudo scripts/setup.sh)" >&2
		exit 1
	fi
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "setup.sh: apt-get not found; segnet's setup supports Debian 12 only" >&2
		echo "setup.sh: install by hand: ${missing[*]}" >&2
		exit 1
	fi
	echo "setup.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture; answer no.
	echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
	if ! apt-get update -q; then
		echo "setup.sh: apt-get update failed (no package archive reachable?)" >&2
		exit 1
	fi
	if ! apt-get install -y -q --no-install-recommends "${missing[@]}"; then
		echo "setup.sh: apt-get could not install: ${missing[*]}" >&2
		exit 1
	fi
	for p in "${missing[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
			echo "setup.sh: package $p is still missing after apt-get" >&2
			exit 1
		fi
	done
fi

[ "$do_build" -eq 1 ] || exit 0

if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir" "$top" -Dwerror="$werror"
elif [ "$werror" = true ]; then
	# Only when asked: turning it off would rebuild what test.sh built with it.
	meson configure "$builddir" -Dwerror=true >/dev/null
fi
ninja -C "$builddir"
echo "setup.sh: built into $builddir"
