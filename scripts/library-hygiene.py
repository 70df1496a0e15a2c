#!/usr/bin/env python3
"""Checks that the library crates neither print nor keep unbounded process-wide state.

In the `src/` of every library crate (each crate under crates/ but the binary `cli` and the
Python bindings `py`), leaving out `#[cfg(test)]` items and modules, `thread_local!` blocks,
comments and string literals:

* no `print!`, `println!`, `eprint!`, `eprintln!` or `dbg!`: a library returns what it would
  print (an error, a field of a report, a `log` record) and the command prints it;
* no `static` holding mutable state (`static mut`, a type with `Mutex`, `RwLock`, `Atomic*`,
  `Cell`, `RefCell`, `UnsafeCell`, or encint-core's `Memo`; `lazy_static!`) unless its line
  carries a marker comment naming it a bounded cache (`// bounded cache: at most N
  entries`), and every marked static is then also named in docs/ARCHITECTURE.md.
  `thread_local!` state and `OnceLock` tables computed once are fine.

    python3 scripts/library-hygiene.py                 # every library crate
    python3 scripts/library-hygiene.py crates/tfhe     # one crate

Prints each finding (file:line and what) and exits 1 if there is any, 0 otherwise.
"""

import re
import sys
from pathlib import Path

from check_report import finish

NOT_LIBRARIES = {"cli", "py"}
ARCHITECTURE = Path("docs/ARCHITECTURE.md")
MARKER = re.compile(r"//\s*bounded cache:")

PRINT_RE = re.compile(r"(?<![\w:])(print|println|eprint|eprintln|dbg)!")
STATIC_RE = re.compile(r"(?<![\w'])static\s+(mut\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:")
MUTABLE_TYPE_RE = re.compile(r"\b(Mutex|RwLock|Atomic[A-Za-z0-9]*|Cell|RefCell|UnsafeCell|Memo)\b")
LAZY_STATIC_RE = re.compile(r"\blazy_static!")
CFG_TEST_RE = re.compile(r"#\[cfg\((?:test|all\(test\b[^\]]*\))\)\]")
THREAD_LOCAL_RE = re.compile(r"\bthread_local!\s*[\{\(]")
TEST_MOD_RE = re.compile(
    r"#\[cfg\((?:test|all\(test\b[^\]]*\))\)\]\s*(?:#\[[^\]]*\]\s*)*"
    r"(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;"
)


def mask(text: str) -> str:
    """`text` with comments, string and character literals blanked (newlines kept, so lines
    and offsets stay where they are)."""
    out, i, n = list(text), 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            j = n if end < 0 else end + 1 + len(hashes)
            blank(i, j)
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i, j + 1)
            i = j + 1
        elif c == "'":
            # A character literal ('a', '\n', '\u{..}'), not a lifetime ('a without a quote).
            m = re.match(r"'(?:\\.[^']*|[^'\\\n])'", text[i:])
            if m:
                blank(i, i + m.end())
                i += m.end()
            else:
                i += 1
        else:
            i += 1
    return "".join(out)


def item_end(masked: str, start: int) -> int:
    """The end of the item starting at `start`: its matching `}` or its `;`, whichever
    closes it at depth 0."""
    depth = 0
    for j in range(start, len(masked)):
        ch = masked[j]
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth -= 1
            if depth == 0 and ch == "}":
                return j + 1
        elif ch == ";" and depth == 0:
            return j + 1
    return len(masked)


def skipped_spans(masked: str):
    """Spans of `#[cfg(test)]` items and `thread_local!` blocks."""
    spans = []
    for m in CFG_TEST_RE.finditer(masked):
        spans.append((m.start(), item_end(masked, m.end())))
    for m in THREAD_LOCAL_RE.finditer(masked):
        spans.append((m.start(), item_end(masked, m.end() - 1)))
    return spans


def module_files(src: Path):
    """The source files of `src`, less those of modules declared `#[cfg(test)] mod x;` (and
    everything below them)."""
    files = sorted(src.rglob("*.rs"))
    test_dirs = []
    for f in files:
        parent_dir = f.parent if f.name in ("lib.rs", "main.rs", "mod.rs") else f.with_suffix("")
        for m in TEST_MOD_RE.finditer(mask(f.read_text(encoding="utf-8"))):
            test_dirs.append(parent_dir / m.group(1))
    keep = []
    for f in files:
        stem = f.with_suffix("") if f.name != "mod.rs" else f.parent
        if any(stem == d or d in stem.parents for d in test_dirs):
            continue
        keep.append(f)
    return keep


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def check_file(f: Path, architecture: str):
    text = f.read_text(encoding="utf-8")
    masked = mask(text)
    lines = text.splitlines()
    spans = skipped_spans(masked)

    def skipped(pos):
        return any(a <= pos < b for a, b in spans)

    problems = []
    for m in PRINT_RE.finditer(masked):
        if not skipped(m.start()):
            problems.append(
                [f"{f}:{line_of(text, m.start())}: prints ({m.group(1)}!): a library returns "
                 "what it would print and the command prints it"]
            )
    found = [(m.start(), item_end(masked, m.start()), m.group(2), bool(m.group(1))) for m in STATIC_RE.finditer(masked)]
    found += [(m.start(), item_end(masked, m.start()), "lazy_static!", True) for m in LAZY_STATIC_RE.finditer(masked)]
    for start, end, name, mutable in found:
        if skipped(start):
            continue
        declaration = masked[start:end]
        declared_type = declaration.split("=", 1)[0]
        if not (mutable or MUTABLE_TYPE_RE.search(declared_type)):
            continue
        first, last = line_of(text, start), line_of(text, end - 1)
        marked = any(MARKER.search(lines[k - 1]) for k in range(first, last + 1))
        where = f"{f}:{first}"
        if not marked:
            problems.append(
                [f"{where}: static {name} holds mutable state: remove it, make it per thread or "
                 "per value, or bound it and mark the line `// bounded cache: at most N entries`"]
            )
        elif not re.search(rf"\b{re.escape(name)}\b", architecture):
            problems.append([f"{where}: bounded cache {name} is not listed in {ARCHITECTURE}"])
    return problems


def main():
    roots = [Path(p) for p in sys.argv[1:]] or sorted(
        p for p in Path("crates").iterdir() if p.is_dir() and p.name not in NOT_LIBRARIES
    )
    architecture = ARCHITECTURE.read_text(encoding="utf-8") if ARCHITECTURE.exists() else ""
    problems = []
    for crate in roots:
        src = crate / "src"
        if src.is_dir():
            for f in module_files(src):
                problems += check_file(f, architecture)
    return finish(problems, f"no print and no unbounded process-wide state in {len(roots)} library crate(s)")


if __name__ == "__main__":
    sys.exit(main())
