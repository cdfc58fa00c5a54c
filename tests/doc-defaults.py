#!/usr/bin/env python3
"""The defaults the documents state are the program's.

A document that says an option's default beside its name -- "`--volume
0..100` (default 70)", "`--crossfade` seconds (2)", "(`--depth`, **30 mm**
by default)", "`--sound auto` (the default)" -- said it by hand; this reads
every such place in README.md and docs/*.md and checks the value against
what `ripple-kiosk --help` says the default is (the option table's). A
place that names an option the program does not have fails too.
tests/man.sh runs it, beside its checks of the pages.
"""

import glob
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks  # noqa: E402  (tests/lib)

srcdir = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), ".."))
builddir = os.environ.get("top_builddir", ".")
PROG = os.path.join(builddir, "src", "ripple-kiosk")

# "  --volume N   how loud ... (default 70, 0..100)": an option's entry,
# its text running on over the indented lines after it.
ENTRY = re.compile(r"^  (?:-\w, )?--([a-z0-9-]+)")
DEFAULT = re.compile(r"\(default:? ([^,)]+)")
# In a document: `--NAME ...`, a few words ("seconds", "days"), then "(N)",
# "(default N)", "(N s)", "(N by default)" or "(N, the default: ...)";
# or `--NAME ...` and a comma, then "N by default" (perhaps in bold, with
# its unit) or "default N"; or `--NAME VALUE` (the default).
OPTION = r"`--([a-z0-9-]+)(?: [^`]*)?`"
NUMBER = r"(-?[0-9][0-9.]*)"
STATED = [
    re.compile(OPTION + r"(?: [a-z]+){0,4} \((?:default:? )?" + NUMBER +
               r"(?: s| ms| mm| by default|, the default[^)]*)?\)"),
    re.compile(OPTION + r", \**" + NUMBER + r"(?: s| ms| mm)?\** by default"),
    re.compile(OPTION + r", default:? " + NUMBER),
    re.compile(r"`--([a-z0-9-]+) ([a-z0-9-]+)` \(the default\)"),
]


def defaults():
    text = subprocess.run([PROG, "--help"], capture_output=True, text=True,
                          check=True).stdout
    entries, name = {}, None
    for line in text.splitlines():
        m = ENTRY.match(line)
        if m:
            name = m.group(1)
            entries[name] = line
        elif name and line.startswith("    "):
            entries[name] += " " + line.strip()
        else:
            name = None
    out = {}
    for name, entry in entries.items():
        m = DEFAULT.search(entry)
        out[name] = m.group(1).strip() if m else None
    return out


def same(want, said):
    """Whether --help's default (its words after "(default") is what a
    document said: the same word, or the same number as the one it starts
    with ("30 for the pond, 5 for the classic water": 30)."""
    if want is None:
        return False
    if want == said:
        return True
    number = re.match(r"-?[0-9][0-9.]*(?![0-9.])", want)
    try:
        return number is not None and float(number.group(0)) == float(said)
    except ValueError:
        return False


def documents():
    paths = [os.path.join(srcdir, "README.md")]
    paths += sorted(glob.glob(os.path.join(srcdir, "docs", "*.md")))
    return paths


def main():
    c = checks.Checks()
    table = defaults()
    c.check(len(table) > 50, "the option table read from --help", "%d options" % len(table))
    seen = 0
    for path in documents():
        with open(path, encoding="utf-8") as f:
            # A stated default may wrap onto the next line.
            text = re.sub(r"\s*\n\s*", " ", f.read())
        found = sorted((m.start(), m.group(1), m.group(2))
                       for stated in STATED for m in stated.finditer(text))
        for _, name, said in found:
            where = "%s: `--%s` (%s)" % (os.path.relpath(path, srcdir), name, said)
            if name not in table:
                c.check(False, where, "no such option")
                continue
            c.check(same(table[name], said), where,
                    "the program's default is %s" % table[name])
            seen += 1
    # As many as the documents state today, less a few: the patterns still
    # find them.
    c.check(seen >= 15, "defaults stated in the documents were found", "%d" % seen)
    return c.exit()


if __name__ == "__main__":
    sys.exit(main())
