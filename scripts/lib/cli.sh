# shellcheck shell=bash disable=SC2154
# Sourced by segnet's command scripts (lab.sh, demo.sh, fuzz.sh, setup.sh,
# bench.sh): help and errors. The script sets prog (its name) and synopsis
# (its usage line; only die_usage needs it).

# The script's header comment: the comment lines after the shebang up to
# the first other line, without an SPDX line and the bare "#" after it.
usage() {
	awk 'NR == 1 { next }
	     !/^#/ { exit }
	     /SPDX-License-Identifier/ { spdx = NR; next }
	     spdx && NR == spdx + 1 && /^#$/ { next }
	     { sub(/^# ?/, ""); print }' "$0"
}

# die MESSAGE: print it and exit 1.
die() {
	echo "$prog: $*" >&2
	exit 1
}

# die_usage MESSAGE: a bad argument; print it and the usage line, exit 2.
die_usage() {
	echo "$prog: $*" >&2
	echo "usage: $synopsis (try --help)" >&2
	exit 2
}
