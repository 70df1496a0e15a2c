#!/usr/bin/env python3
"""Finds import circles between the modules of each crate of the workspace.

A reference from module `a::x` to module `a::y::z` (through `crate::`, `super::` or
`self::` paths, in `use` lines or inline) is an edge between the two siblings under their
common ancestor (`a::x -> a::y`). A name a module re-exports (`pub use y::Item;` in `a`, so
that `crate::a::Item` or `crate::Item` reads like one of `a`'s own) counts as a reference to
the module it comes from: a file that imports `crate::Item` re-exported by `lib.rs` from
`server` imports `server`. A parent naming its own child (re-exports, `mod` lines) or
a child naming its parent is not an edge: a parent and its children are one unit. A circle is
a cycle among siblings. `#[cfg(test)]` blocks and `tests/` are included: a test module that
reaches back into its parent is a child and does not count.

    python3 scripts/module-cycles.py            # every crate under crates/
    python3 scripts/module-cycles.py crates/cli # one crate

Prints each circle found and exits 1 if there is any, 0 otherwise.
"""

import re
import sys
from pathlib import Path

from check_report import finish

PATH_RE = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP_RE = re.compile(r"\buse\s+(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};", re.S)


def module_files(src: Path):
    """Maps module path tuples to files, for every file under `src`."""
    mods = {}
    for f in src.rglob("*.rs"):
        rel = f.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts in (["lib"], ["main"]):
            parts = []
        elif parts[-1] == "mod":
            parts = parts[:-1]
        mods[tuple(parts)] = f
    return mods


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//")[0] for line in text.splitlines())


REEXPORT_RE = re.compile(r"\bpub(?:\([a-z]+\))?\s+use\s+([^;]+);", re.S)


def reexports(module, text, mods):
    """Maps each name that `module` re-exports to the path (a tuple) it re-exports.

    Only paths into this crate count (`self::`, `super::`, `crate::` or a child module's
    name); re-exports of other crates are left out."""
    out = {}
    for m in REEXPORT_RE.finditer(text):
        body = " ".join(m.group(1).split())
        g = re.match(r"^(.*?)::\{(.*)\}$", body)
        items = [(g.group(1), it) for it in g.group(2).split(",")] if g else [("", body)]
        for head, item in items:
            item = item.strip()
            if not item or "{" in item:
                continue
            path, _, alias = (part.strip() for part in item.partition(" as "))
            segs = [s.strip() for s in ((head + "::" if head else "") + path).split("::") if s.strip()]
            if not segs or segs[-1] == "*":
                continue
            alias = alias or segs[-1]
            if segs[0] == "crate":
                base, segs = (), segs[1:]
            elif segs[0] in ("self", "super"):
                base = module if segs[0] == "self" else module[:-1]
                segs = segs[1:]
                while segs and segs[0] == "super":
                    base, segs = base[:-1], segs[1:]
            elif module + (segs[0],) in mods:
                base = module
            else:
                continue  # another crate
            out[alias] = tuple(base) + tuple(segs)
    return out


def resolve(base, segs, mods, exports=None, depth=0):
    """The longest known module that `base + segs` names (items are dropped); a name a
    module re-exports is followed to the module it comes from."""
    full = tuple(base) + tuple(segs)
    for n in range(len(full), -1, -1):
        if full[:n] in mods:
            target = (exports or {}).get(full[:n], {}).get(full[n]) if n < len(full) else None
            if target is not None and depth < 8 and target != full[: n + 1]:
                return resolve((), list(target) + list(full[n + 1 :]), mods, exports, depth + 1)
            return full[:n]
    return ()


def targets(module, text, mods, exports=None):
    refs = []
    for m in USE_GROUP_RE.finditer(text):
        head = [s for s in m.group(2).split("::") if s]
        for item in re.split(r",", m.group(3)):
            item = item.strip().split(" as ")[0].strip()
            if not item or item.startswith("{"):
                continue
            refs.append((m.group(1), head + [s for s in item.split("::") if s and s != "*"]))
    for m in PATH_RE.finditer(text):
        refs.append((m.group(1), [s for s in m.group(2).split("::") if s]))
    out = set()
    for kind, segs in refs:
        if kind == "crate":
            base = ()
        else:
            base = module
            while segs and segs[0] == "super":
                segs = segs[1:]
            if kind == "super":
                base = module[:-1]
            # `super::super::x` appears as super + ["super", "x"]; count the extra supers.
        extra = 0
        while segs and segs[0] == "super":
            segs, extra = segs[1:], extra + 1
        base = base[: len(base) - extra] if extra else base
        out.add(resolve(base, segs, mods, exports))
    return out


def sibling_edge(a, b):
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    if n == len(a) or n == len(b):
        return None  # one contains the other
    return a[: n + 1], b[: n + 1]


def cycles(graph):
    """Strongly connected components of size > 1 (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def check_crate(crate: Path):
    src = crate / "src"
    if not src.is_dir():
        return []
    mods = module_files(src)
    texts = {module: strip_comments(f.read_text()) for module, f in mods.items()}
    exports = {(): reexports((), texts.get((), ""), mods)}
    graph, why = {}, {}
    for module, f in mods.items():
        text = texts[module]
        for t in targets(module, text, mods, exports):
            e = sibling_edge(module, t)
            if e is None:
                continue
            graph.setdefault(e[0], set()).add(e[1])
            why.setdefault(e, f"{f}")
    found = []
    for comp in cycles(graph):
        names = ["::".join(c) for c in comp]
        edges = [
            f"{'::'.join(a)} -> {'::'.join(b)} ({why[(a, b)]})"
            for a in comp
            for b in graph.get(a, ())
            if b in comp
        ]
        found.append((crate, names, edges))
    return found


def main():
    roots = [Path(p) for p in sys.argv[1:]] or sorted(p for p in Path("crates").iterdir() if p.is_dir())
    found = []
    for crate in roots:
        found += check_crate(crate)
    problems = [
        [f"{crate}: circle {' <-> '.join(names)}"] + [f"    {e}" for e in edges]
        for crate, names, edges in found
    ]
    return finish(problems, f"no import circle in {len(roots)} crate(s)")


if __name__ == "__main__":
    sys.exit(main())
