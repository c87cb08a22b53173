# shellcheck shell=sh
# Sourced by segnet's scripts and integration tests (POSIX sh).

# dpdk_runtime_dir PREFIX: the EAL's runtime directory for a file prefix, as
# DPDK 22.11 chooses it (what a run with that prefix leaves behind).
dpdk_runtime_dir() {
	if [ -n "${RUNTIME_DIRECTORY:-}" ]; then
		echo "$RUNTIME_DIRECTORY/dpdk/$1"
	elif [ "$(id -u)" = 0 ]; then
		echo "/var/run/dpdk/$1"
	else
		echo "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$1"
	fi
}
