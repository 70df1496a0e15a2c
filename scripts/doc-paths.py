#!/usr/bin/env python3
"""Fails when a document names a path of one machine (`/home/...`, `/root/...`, `/work/...`,
`/tmp/...`, `/Users/...`, `/mnt/...`): the docs speak of the repository's own paths, relative
to its root, so that they are true on every clone.

Reads README.md, docs/ (Markdown and the raw outputs in docs/bench/) and every crate's
README.md. A line that shows a command a user types with a scratch directory of their own
choosing (`--dir /tmp/keys`) may keep it by carrying `machine-path-ok` in the same line.

    python3 scripts/doc-paths.py

Prints each offending line and exits 1 if there is any, 0 otherwise.
"""

import re
import sys
from pathlib import Path

from check_report import finish

ROOT = Path(__file__).resolve().parent.parent
MACHINE_PATH = re.compile(r"(?:^|[^A-Za-z0-9_.~/-])(/(?:home|root|work|tmp|Users|mnt)/[A-Za-z0-9_./-]*)")


def documents():
    yield ROOT / "README.md"
    for p in sorted((ROOT / "docs").rglob("*")):
        if p.is_file() and p.suffix in (".md", ".txt"):
            yield p
    for p in sorted((ROOT / "crates").glob("*/README.md")):
        yield p


def main():
    problems = []
    count = 0
    for doc in documents():
        count += 1
        for n, line in enumerate(doc.read_text(errors="replace").splitlines(), 1):
            if "machine-path-ok" in line:
                continue
            for m in MACHINE_PATH.finditer(line):
                problems.append([f"{doc.relative_to(ROOT)}:{n}: machine path {m.group(1)}"])
    return finish(problems, f"no machine path in {count} document(s)")


if __name__ == "__main__":
    sys.exit(main())
