#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every Criterion test the docs name as suite::name is one in tests/.

    doc_tests.py SRCDIR

Reads README.md, doc/*.md, doc/man/* and the README.md files one and two
folders down under SRCDIR; wherever they name a test as suite::name (the
form `criterion --filter` and the doc's prose use), tests/**/*.c must
define Test(suite, name). A test renamed or removed leaves the doc citing
it as evidence pointing at nothing. Exits 0 when every name is found,
1 otherwise, naming file, line and test.
"""
import glob
import os
import re
import sys

DEFINED = re.compile(r"\bTest\s*\(\s*(\w+)\s*,\s*(\w+)")
CITED = re.compile(r"(?<![\w:])([a-z][a-z0-9_]*)::([a-z0-9_]+)\b")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: doc_tests.py SRCDIR")
    src = sys.argv[1]
    tests = set()
    for path in glob.glob("tests/**/*.c", root_dir=src, recursive=True):
        with open(os.path.join(src, path), encoding="utf-8", errors="replace") as f:
            tests.update(DEFINED.findall(f.read()))
    pages = ["README.md"] + sorted(glob.glob("doc/*.md", root_dir=src)) + \
        sorted(glob.glob("doc/man/*", root_dir=src)) + \
        sorted(glob.glob("*/README.md", root_dir=src)) + \
        sorted(glob.glob("*/*/README.md", root_dir=src))
    bad = cited = 0
    for page in pages:
        with open(os.path.join(src, page), encoding="utf-8") as f:
            text = f.read().replace("\\-", "-")
        for m in CITED.finditer(text):
            cited += 1
            if (m.group(1), m.group(2)) not in tests:
                bad += 1
                line = text.count("\n", 0, m.start()) + 1
                print(f"doc_tests: FAIL: {page}:{line}: {m.group(0)}: no Test({m.group(1)}, "
                      f"{m.group(2)}) in tests/")
    print(f"doc_tests: {cited} test names cited in {len(pages)} pages, "
          f"{len(tests)} tests defined, {bad} unknown")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
