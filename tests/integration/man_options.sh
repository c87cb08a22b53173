#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every option a program's --help lists is in its man page, and every
# option its man page gives an entry (the line after .TP) is in --help; an
# option both give a numeric default in an entry of its own has the same one.
# Usage: man_options.sh MANDIR PROG MANPAGE [PROG MANPAGE ...]
set -u
mandir=${1:?usage: man_options.sh MANDIR PROG MANPAGE [PROG MANPAGE ...]}
shift
passed=0
failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/segnet-manopts.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The long options named on the option lines of a --help text (stdin).
help_options() {
	grep -E '^ +(-[A-Za-z], )?--[a-z]' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

# The long options a man page (file $1) gives an entry: the line after .TP.
man_entries() {
	awk 'prev == ".TP" { print } { prev = $0 }' "$1" | sed 's/\\-/-/g' |
		grep -oE -- '^\.[A-Z]+ +"?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

# "OPTION DEFAULT" for each entry that names one option and gives a default
# that starts with a digit ("(default 16)", "default: 0 = off"): of a --help
# text on stdin, or with the argument man, of a man page's .TP entries.
entry_defaults() {
	awk -v man="${1:-}" '
	function one_option(head) {
		if (gsub(/--[a-z][a-z0-9-]*/, "&", head) != 1)
			return 0
		match(head, /--[a-z][a-z0-9-]*/)
		opt = substr(head, RSTART, RLENGTH)
		return 1
	}
	function flush(  t) {
		gsub(/ +/, " ", text)
		if (opt != "" && match(text, /default:? [^ ]+/)) {
			t = substr(text, RSTART, RLENGTH)
			sub(/^default:? /, "", t)
			gsub(/[,.:;)]+$/, "", t)
			if (t ~ /^[0-9][0-9A-Za-z.\/]*$/)
				print opt, t
		}
		opt = text = ""
	}
	man && /^\.(TP|SH|SS|PP)/ { flush(); tag = /^\.TP/; next }
	man && tag { tag = 0; one_option($0); next }
	man { line = $0; sub(/^\.[A-Z]+ /, "", line); text = text " " line; next }
	/^ +(-[A-Za-z], )?--[a-z]/ {
		flush()
		line = $0
		sub(/^ +/, "", line)
		head = line
		sub(/  .*/, "", head)
		if (one_option(head))
			text = substr(line, length(head) + 1)
		next
	}
	/^      +[^ ]/ { text = text " " $0; next }
	{ flush() }
	END { flush() }' | sort -k1,1
}

while [ $# -ge 2 ]; do
	prog=$1 page=$mandir/$2
	name=$(basename "$prog")
	shift 2
	if ! "$prog" --help >"$tmp/help" 2>&1; then
		failed=$((failed + 1))
		echo "FAIL: $name --help exited non-zero"
		continue
	fi
	help_options <"$tmp/help" >"$tmp/opts"
	sed 's/\\-/-/g' "$page" >"$tmp/page"
	missing=
	for o in $(cat "$tmp/opts"); do
		grep -qe "$o\([^a-z0-9-]\|$\)" "$tmp/page" || missing="$missing $o"
	done
	if [ -z "$missing" ] && [ -s "$tmp/opts" ]; then
		passed=$((passed + 1))
		echo "ok: the $(wc -l <"$tmp/opts") options of $name --help are in $(basename "$page")"
	else
		failed=$((failed + 1))
		echo "FAIL: $name --help lists options $(basename "$page") does not have:${missing:- none found in --help}"
	fi
	extra=
	for o in $(man_entries "$page"); do
		grep -qe "$o\([^a-z0-9-]\|$\)" "$tmp/help" || extra="$extra $o"
	done
	if [ -z "$extra" ]; then
		passed=$((passed + 1))
		echo "ok: every option entry of $(basename "$page") is in $name --help"
	else
		failed=$((failed + 1))
		echo "FAIL: $(basename "$page") has entries for options $name --help does not list:$extra"
	fi
	entry_defaults <"$tmp/help" >"$tmp/help_defaults"
	sed 's/\\f[BIRP]//g' "$tmp/page" | entry_defaults man >"$tmp/page_defaults"
	join "$tmp/help_defaults" "$tmp/page_defaults" >"$tmp/defaults"
	differ=$(awk '$2 != $3 { printf " %s (--help %s, man page %s)", $1, $2, $3 }' "$tmp/defaults")
	if [ -z "$differ" ]; then
		passed=$((passed + 1))
		echo "ok: the $(wc -l <"$tmp/defaults") defaults that $name --help and $(basename "$page") both give agree"
	else
		failed=$((failed + 1))
		echo "FAIL: $name --help and $(basename "$page") give different defaults:$differ"
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
