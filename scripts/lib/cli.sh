# shellcheck shell=bash disable=SC2154
# Sourced by segnet's command scripts (lab.sh, demo.sh): help and errors.
# The script sets prog (its name) and synopsis (its usage line).

# The script's header comment, from its fourth line to its end.
usage() {
	awk 'NR >= 4 && !/^#/ { exit } NR >= 4 { sub(/^# ?/, ""); print }' "$0"
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
