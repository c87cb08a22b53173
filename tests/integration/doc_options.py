#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every option a command in the docs gives a program is in its --help.

    doc_options.py SRCDIR NAME=PROG [NAME=PROG ...]

Reads README.md, doc/*.md and pcap/samples/README.md under SRCDIR (their
indented code lines, a line ending in a backslash continued, and their
`inline code`) and the EXAMPLES of doc/man/*: wherever a command runs
NAME (the program's name, or a path ending in it: build/tests/sim/segnet-sim,
scripts/lab.sh), each long option after it must be one that PROG --help
lists. When the command has a lone "--", the options before it are the
EAL's and only those after it are checked. man_options checks the man
pages' option entries; this checks the commands a user copies. Exits 0
when every option is known, 1 otherwise, naming file, line and option.
"""
import glob
import os
import re
import subprocess
import sys

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# Where one command ends and the next may start.
SEPARATOR = re.compile(r";|&&|\|\||\||&|\$\(|\(|\)")


def help_options(prog):
    """The long options PROG --help names (anywhere in its text)."""
    out = subprocess.run([prog, "--help"], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"doc_options: FAIL: {prog} --help exited {out.returncode}")
    return set(OPTION.findall(out.stdout + out.stderr))


def md_commands(text):
    """(line, command) of a Markdown page: code lines and inline code."""
    lines = text.split("\n")
    prose = []
    fenced = code = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            fenced = not fenced
        if fenced or line.startswith("```"):
            prose.append("")
            i += 1
            continue
        # A code block starts with an indented line after a blank one and
        # ends at the next non-blank line that is not indented.
        if line.strip() and not line.startswith("    "):
            code = False
        elif line.startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            code = True
        if code and line.strip():
            first, cmd = i, line
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1] + " " + lines[i]
                prose.append("")
            prose.append("")
            yield first + 1, re.sub(r"^\s*\$ ", "", cmd)
        else:
            prose.append(line)
        i += 1
    text = "\n".join(prose)
    for m in re.finditer(r"`([^`]+)`", text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1).replace("\n", " ")


def man_commands(text):
    """(line, command) of the EXAMPLES section of a man page."""
    inside = False
    cmd, first = "", 0
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith(".SH"):
            inside = line.split(None, 1)[1:] == ["EXAMPLES"]
            continue
        if not inside or line.startswith("."):
            continue
        line = line.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")
        if not cmd:
            first = n
        cmd += line
        if cmd.endswith("\\"):
            cmd = cmd[:-1] + " "
            continue
        yield first, cmd
        cmd = ""


def check(where, cmd, helps, seen):
    """The options of cmd's programs that their --help does not name;
    counts in seen the options of each program checked."""
    bad = []
    for part in SEPARATOR.split(cmd.split(" #", 1)[0]):
        words = part.split()
        for k, word in enumerate(words):
            name = os.path.basename(word)
            if name not in helps:
                continue
            args = words[k + 1:]
            if "--" in args:
                args = args[args.index("--") + 1:]
            for opt in OPTION.findall(" ".join(args)):
                seen[name] = seen.get(name, 0) + 1
                if opt not in helps[name]:
                    bad.append(f"{where}: {name} {opt}: not in {name} --help ({part.strip()})")
            break
    return bad


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: doc_options.py SRCDIR NAME=PROG [NAME=PROG ...]")
    src = sys.argv[1]
    helps = {}
    for arg in sys.argv[2:]:
        name, prog = arg.split("=", 1)
        helps[name] = help_options(prog)
    pages = ["README.md"] + sorted(glob.glob("doc/*.md", root_dir=src)) + \
        ["pcap/samples/README.md"]
    bad, seen = [], {}
    for page in pages:
        with open(os.path.join(src, page), encoding="utf-8") as f:
            text = f.read()
        for line, cmd in md_commands(text):
            bad += check(f"{page}:{line}", cmd, helps, seen)
    for page in sorted(glob.glob("doc/man/*", root_dir=src)):
        with open(os.path.join(src, page), encoding="utf-8") as f:
            text = f.read()
        for line, cmd in man_commands(text):
            bad += check(f"{page}:{line}", cmd, helps, seen)
    for b in bad:
        print(f"doc_options: FAIL: {b}")
    for name in helps:
        print(f"doc_options: {name}: {seen.get(name, 0)} options in the docs' commands")
    print(f"doc_options: {len(bad)} unknown option(s)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
