#!/usr/bin/env python3
"""Fails when a source file tracked by git has more than 800 lines.

One idea per file keeps files short; a file past the limit is a sign that it holds several.
Generated tables are not source and are not counted (they are not .rs/.py/.cu files).

    python3 scripts/file-sizes.py            # the limit, 800 lines
    python3 scripts/file-sizes.py --limit 600
"""

import subprocess
import sys

from check_report import finish

SOURCE = (".rs", ".py", ".pyi", ".cu", ".sh")


def main():
    limit = 800
    if len(sys.argv) == 3 and sys.argv[1] == "--limit":
        limit = int(sys.argv[2])
    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    over = []
    for f in files:
        if f.endswith(SOURCE):
            with open(f, encoding="utf-8", errors="replace") as fh:
                n = sum(1 for _ in fh)
            if n > limit:
                over.append((n, f))
    problems = [[f"{f}: {n} lines (limit {limit})"] for n, f in sorted(over, reverse=True)]
    return finish(problems, f"no source file over {limit} lines")


if __name__ == "__main__":
    sys.exit(main())
