#!/usr/bin/env python3
"""Draws the benchmark charts of docs/BENCHMARKS.md from the JSON files in docs/bench/.

    python3 scripts/charts.py            # writes docs/charts/*.svg

Standard library only; the SVG is written by hand (bars with value labels, axes, a
legend) and the output is deterministic: the same JSON gives byte-identical files.
Peer figures that the JSON files do not hold (OpenFHE measured on the same machine) are
the constants below, as stated in docs/BENCHMARKS.md.
"""

import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "docs", "bench")
OUT = os.path.join(ROOT, "docs", "charts")

# Colours of the series, in order (colour-blind safe palette).
COLOURS = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#999999"]

# OpenFHE 1.6.1 (BFVRNS, t = 65537), one thread, measured on the benchmark machine, ms:
# best decryption and best multiplication with relinearisation per set (docs/BENCHMARKS.md).
OPENFHE = {
    "A": {"decrypt": 0.67, "mul_relin": 13.7},
    "B": {"decrypt": 2.31, "mul_relin": 62.7},
    "C": {"decrypt": 10.7, "mul_relin": 389.0},
    "D": {"decrypt": 45.8, "mul_relin": 2385.0},
}


def load(name):
    with open(os.path.join(BENCH, name)) as f:
        return json.load(f)


def esc(text):
    return (
        str(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
    )


def fmt(v):
    """A value label: two significant decimals below 10, fewer above."""
    if v == 0:
        return "0"
    if v < 0.01:
        return "%.3f" % v
    if v < 10:
        return "%.2f" % v
    if v < 100:
        return "%.1f" % v
    return "%.0f" % v


def n(x):
    """A coordinate, rounded so that output does not depend on float noise."""
    return ("%.1f" % x).rstrip("0").rstrip(".")


def nice_max(v):
    """The smallest 1, 2, 2.5 or 5 times a power of ten at or above v."""
    if v <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * e >= v - 1e-12:
            return m * e
    return 10 * e


def bar_chart(path, title, subtitle, categories, series, ylabel, log=False, ref=None,
              ref_label="parity", source=""):
    """Grouped bars: one group per category, one bar per series (value or None).

    log: logarithmic y axis (values > 0). ref: a dashed horizontal line at this value
    (e.g. 1.0 for parity), labelled with ref_label.
    """
    nser = len(series)
    bar_w = 14 if nser > 2 else 18
    group_w = nser * bar_w + 14
    left, right, top, bottom = 70, 20, 70, 110
    legend_h = 22 * ((nser + (1 if ref is not None else 0) + 3) // 4)
    plot_w = max(len(categories) * group_w, 360)
    plot_h = 260
    # Wide enough for the title (15 px bold) and the subtitle (11 px).
    legend_w = max(len(name) for name, _ in series) * 7 + 34
    text_w = max(len(title) * 9, len(subtitle) * 6, len(source) * 5,
                 left + min(nser + (1 if ref is not None else 0), 4) * legend_w)
    plot_w = max(plot_w, text_w - right)
    width = left + plot_w + right
    height = top + plot_h + bottom + legend_h
    values = [v for _, vals in series for v in vals if v is not None]
    if ref is not None:
        values.append(ref)
    if log:
        lo = 10 ** math.floor(math.log10(min(v for v in values if v > 0)))
        hi = 10 ** math.ceil(math.log10(max(values)))
        if hi <= lo:
            hi = lo * 10

        def y(v):
            v = max(v, lo)
            return top + plot_h - plot_h * (math.log10(v) - math.log10(lo)) / (
                math.log10(hi) - math.log10(lo)
            )

        ticks = []
        t = lo
        while t <= hi * 1.0001:
            ticks.append(t)
            t *= 10
    else:
        hi = nice_max(max(values) * 1.08)

        def y(v):
            return top + plot_h - plot_h * v / hi

        step = hi / 5
        ticks = [step * i for i in range(6)]
    o = []
    o.append(
        '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" '
        'font-family="Helvetica, Arial, sans-serif" font-size="11">' % (width, height, width, height)
    )
    o.append('<rect x="0" y="0" width="%s" height="%s" fill="#ffffff"/>' % (width, height))
    o.append(
        '<text x="%s" y="22" font-size="15" font-weight="bold">%s</text>' % (left, esc(title))
    )
    o.append('<text x="%s" y="40" fill="#444444">%s</text>' % (left, esc(subtitle)))
    # Axes and grid.
    for t in ticks:
        ty = y(t)
        o.append(
            '<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e5e5e5"/>'
            % (left, n(ty), left + plot_w, n(ty))
        )
        o.append(
            '<text x="%s" y="%s" text-anchor="end" fill="#444444">%s</text>'
            % (left - 6, n(ty + 4), esc(fmt(t)))
        )
    o.append(
        '<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333333"/>'
        % (left, top, left, top + plot_h)
    )
    o.append(
        '<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333333"/>'
        % (left, top + plot_h, left + plot_w, top + plot_h)
    )
    o.append(
        '<text x="16" y="%s" transform="rotate(-90 16 %s)" text-anchor="middle" fill="#333333">%s</text>'
        % (n(top + plot_h / 2), n(top + plot_h / 2), esc(ylabel + (" (log scale)" if log else "")))
    )
    if ref is not None:
        ry = y(ref)
        o.append(
            '<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#c00000" stroke-dasharray="5,4"/>'
            % (left, n(ry), left + plot_w, n(ry))
        )
    # Bars.
    gap = (plot_w - len(categories) * group_w) / max(len(categories), 1)
    for ci, cat in enumerate(categories):
        gx = left + gap / 2 + ci * (group_w + gap) + 7
        for si, (_, vals) in enumerate(series):
            v = vals[ci]
            if v is None:
                continue
            x = gx + si * bar_w
            y0 = y(lo) if log else y(0)
            yv = y(v)
            o.append(
                '<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>'
                % (n(x), n(min(yv, y0)), bar_w - 2, n(max(abs(y0 - yv), 0.5)), COLOURS[si % len(COLOURS)],
                   esc("%s, %s: %s" % (cat, series[si][0], fmt(v))))
            )
            lx = x + (bar_w - 2) / 2
            ly = min(yv, y0) - 3
            o.append(
                '<text x="%s" y="%s" font-size="8" text-anchor="start" transform="rotate(-90 %s %s)" fill="#222222">%s</text>'
                % (n(lx + 3), n(ly), n(lx + 3), n(ly), esc(fmt(v)))
            )
        cx = gx + (nser * bar_w) / 2
        cy = top + plot_h + 12
        o.append(
            '<text x="%s" y="%s" text-anchor="end" transform="rotate(-40 %s %s)" fill="#222222">%s</text>'
            % (n(cx), n(cy), n(cx), n(cy), esc(cat))
        )
    # Legend.
    ly0 = top + plot_h + bottom - 10
    for si, (name, _) in enumerate(series):
        lx = left + (si % 4) * legend_w
        lyy = ly0 + (si // 4) * 22
        o.append(
            '<rect x="%s" y="%s" width="12" height="12" fill="%s"/>'
            % (lx, lyy, COLOURS[si % len(COLOURS)])
        )
        o.append('<text x="%s" y="%s">%s</text>' % (lx + 18, lyy + 10, esc(name)))
    if ref is not None:
        si = nser
        lx = left + (si % 4) * legend_w
        lyy = ly0 + (si // 4) * 22
        o.append(
            '<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#c00000" stroke-dasharray="5,4"/>'
            % (lx, lyy + 6, lx + 14, lyy + 6)
        )
        o.append(
            '<text x="%s" y="%s">%s</text>' % (lx + 18, lyy + 10, esc("%s (%s)" % (ref_label, fmt(ref))))
        )
    if source:
        o.append(
            '<text x="%s" y="%s" font-size="9" fill="#666666">%s</text>'
            % (left, height - 8, esc(source))
        )
    o.append("</svg>")
    with open(path, "w", newline="\n") as f:
        f.write("\n".join(o) + "\n")
    return path


def latest(files):
    """Rows keyed by (op, type), later files overriding earlier ones."""
    rows = {}
    for name in files:
        for r in load(name):
            rows[(r["op"], r["type"])] = r
    return rows


def ratio_series(rows, types, ops):
    """One series per type: each op's ratio (None where there is no row or no ratio)."""
    series = []
    for t in types:
        vals = []
        for op in ops:
            r = rows.get((op, t))
            vals.append(r["ratio"] if r and r.get("ratio") is not None else None)
        series.append((t, vals))
    return series


TYPED_2 = [
    "typed-ks32-2threads.json",
    "typed-ks32-div-2threads.json",
    "typed-ks32-rest-2threads.json",
    "typed-cmp-2threads.json",
    "typed-minmax-2threads.json",
]
TYPED_1 = [
    "typed-ks32-1thread.json",
    "typed-ks32-rest-1thread.json",
    "typed-ks32-div816-1thread.json",
    "typed-ks32-div32-1thread.json",
    "typed-ks32-div64-1thread.json",
    "typed-cmp-1thread.json",
]
TYPED_OPS = [
    "add", "sub", "mul", "squ", "scalar_mul(805)", "and", "xor", "shl_var", "rotl_var",
    "lt", "eq", "min", "max", "select", "div", "rem", "div(7)", "rem(7)",
]


def typed_chart(files, threads):
    series = ratio_series(latest(files), ("u8", "u16", "u32", "u64"), TYPED_OPS)
    return bar_chart(
        os.path.join(OUT, "typed-vs-tfhe-%dthread%s.svg" % (threads, "s" if threads > 1 else "")),
        "Typed integers: encint / TFHE-rs 1.8.2, %d thread%s" % (threads, "s" if threads > 1 else ""),
        "time ratio, unsigned; below 1: encint is faster. TFHE-rs on its default configuration",
        TYPED_OPS,
        series,
        "ours / TFHE-rs",
        ref=1.0,
        source="docs/bench/" + ", ".join(f[:-5] for f in files) + " (.json)",
    )


CANONICAL_KS32 = "typed-canonical-vs-tfhe-ks32-2threads.json"
CANONICAL_OPS = ["add", "sub", "and", "xor", "mul", "lt", "max"]


def canonical_chart():
    """Operands in canonical bits (the default form before radix-4 blocks), TFHE-rs on KS32."""
    series = ratio_series(
        latest([CANONICAL_KS32]), ("u8", "i8", "u16", "i16", "u32", "i32"), CANONICAL_OPS
    )
    return bar_chart(
        os.path.join(OUT, "typed-canonical-vs-tfhe-ks32-2threads.svg"),
        "Typed integers on canonical bits: encint / TFHE-rs 1.8.2 on its KS32 set, 2 threads",
        "time ratio; operands in canonical bits (one bit per digit); below 1: encint is faster",
        CANONICAL_OPS,
        series,
        "ours / TFHE-rs (KS32)",
        ref=1.0,
        source="docs/bench/" + CANONICAL_KS32,
    )


def digits_chart():
    rows = load("tfhe-2threads.json")
    cats = []
    keys = []
    for op, arg in [
        ("add", None), ("sub", None), ("mul", None), ("mul_low", None), ("squ", None),
        ("scalar_mul", 805), ("scalar_mul", 4095), ("sgn", None), ("max", None),
    ]:
        cats.append(op if arg is None else "%s(%d)" % (op, arg))
        keys.append((op, arg))
    series = []
    for bits in (8, 16, 32):
        vals = []
        for op, arg in keys:
            r = next((r for r in rows if r["op"] == op and r["arg"] == arg and r["bits"] == bits), None)
            vals.append(r["ratio"] if r and r["ratio"] is not None and r["pbs"] > 0 else None)
        series.append(("%d bits" % bits, vals))
    return bar_chart(
        os.path.join(OUT, "digits-vs-tfhe-2threads.svg"),
        "Exact digits (Parmesan's forms): encint / TFHE-rs 1.8.2, 2 threads",
        "time ratio; ours exact (mul: 2n bits), TFHE-rs wrapping; KS64 on both sides; 0-bootstrap rows left out",
        cats,
        series,
        "ours / TFHE-rs",
        ref=1.0,
        source="docs/bench/tfhe-2threads.json",
    )


def bits_chart():
    rows = load("bits-ks32-2threads.json")
    cats, peer, paper = [], [], []
    for r in rows:
        cats.append("%s %d%s" % (r["op"], r["bits"], "" if r["n"] == 1 else " x%d" % r["n"]))
        peer.append(r["ours_ms"] / r["peer_ms"] if r.get("peer_ms") else None)
        paper.append(r["ours_ms"] / r["paper_ms"] if r.get("paper_ms") else None)
    return bar_chart(
        os.path.join(OUT, "bits-vs-peers-2threads.svg"),
        "Bit vectors: encint (2 threads) / TFHE-rs FheUint and the carry-save paper",
        "time ratio; TFHE-rs on 2 threads; paper: Trifan et al., 64 threads, as published",
        cats,
        [("ours / TFHE-rs", peer), ("ours / paper (64 threads)", paper)],
        "ratio",
        ref=1.0,
        source="docs/bench/bits-ks32-2threads.json",
    )


def asm_chart():
    one = {r["instr"]: r for r in load("asm-1thread.json")}
    two = {r["instr"]: r for r in load("asm-2threads.json")}
    cats = [k for k in one if one[k].get("peer_ms")]
    return bar_chart(
        os.path.join(OUT, "asm-vs-peers.svg"),
        "Byte processor: encint / the 8-bit processor paper and TFHE-rs FheUint8",
        "time ratio; paper: Trama et al., Table 4, one core, as published",
        cats,
        [
            ("ours / paper, 1 thread", [one[k]["ours_ms"] / one[k]["paper_ms"] for k in cats]),
            ("ours / TFHE-rs, 1 thread", [one[k]["ours_ms"] / one[k]["peer_ms"] for k in cats]),
            ("ours / TFHE-rs, 2 threads", [two[k]["ours_ms"] / two[k]["peer_ms"] for k in cats]),
        ],
        "ratio",
        ref=1.0,
        source="docs/bench/asm-1thread.json, asm-2threads.json",
    )


def fv_chart():
    rows = load("fv-quiet.json")
    sets = ["A", "B", "C", "D"]

    def best(s, op):
        return min(r["ms"] for r in rows if r["set"] == s and r["op"] == op)

    def of(s, op, variant):
        return next(r["ms"] for r in rows if r["set"] == s and r["op"] == op and r["variant"] == variant)

    return bar_chart(
        os.path.join(OUT, "fv-vs-openfhe.svg"),
        "FV: encint / OpenFHE 1.6.1, one thread",
        "time ratio per set of the HPR paper; OpenFHE's best variant, measured on the same machine",
        ["set %s" % s for s in sets],
        [
            ("decrypt, HPR", [of(s, "decrypt", "hpr") / OPENFHE[s]["decrypt"] for s in sets]),
            ("decrypt, best RNS (BEHZ / HPS)", [min(of(s, "decrypt", "behz"), of(s, "decrypt", "hps")) / OPENFHE[s]["decrypt"] for s in sets]),
            ("mul + relin, best variant", [best(s, "mul_relin") / OPENFHE[s]["mul_relin"] for s in sets]),
        ],
        "ours / OpenFHE",
        ref=1.0,
        source="docs/bench/fv-quiet.json; OpenFHE figures: docs/BENCHMARKS.md",
    )


def fv_bits_chart():
    rows = [r for r in load("fv-bits-2threads-quiet.json") if r["status"] == "ok"]
    rows = [r for r in rows if r.get("paper_ms_per_slot") or r.get("helib_ms_per_slot")]
    cats = ["%s %d %s" % (r["op"], r["bits"], r["adder"]) for r in rows]
    return bar_chart(
        os.path.join(OUT, "fv-bits-vs-helib.svg"),
        "Bit-sliced FV: speed-up per slot of encint (2 threads)",
        "their ms per slot / ours; HElib 2.2.0 measured at 2 threads; paper: Chen et al., HElib, 8 threads",
        cats,
        [
            ("vs HElib (same machine)", [r["helib_ms_per_slot"] / r["ms_per_slot"] if r.get("helib_ms_per_slot") else None for r in rows]),
            ("vs the paper", [r["paper_ms_per_slot"] / r["ms_per_slot"] if r.get("paper_ms_per_slot") else None for r in rows]),
        ],
        "speed-up (x)",
        log=True,
        source="docs/bench/fv-bits-2threads-quiet.json",
    )


def threads_chart():
    one = latest(TYPED_1)
    two = latest(TYPED_2)
    ops = ["add", "mul", "squ", "and", "shl_var", "lt", "eq", "max", "div", "div(7)"]
    ours, peer = [], []
    for op in ops:
        a, b = one.get((op, "u32")), two.get((op, "u32"))
        ours.append(a["ours_ms"] / b["ours_ms"] if a and b else None)
        peer.append(a["peer_ms"] / b["peer_ms"] if a and b and a.get("peer_ms") and b.get("peer_ms") else None)
    mpi1 = {r["bits"]: r for r in load("mpi-1rank-1thread-quiet.json")}
    mpi2 = {r["bits"]: r for r in load("mpi-2ranks-1thread-quiet.json")}
    cats = ["%s u32" % op for op in ops] + ["MPI mul %d, 2 ranks" % b for b in sorted(mpi1)]
    ours += [mpi1[b]["ms"] / mpi2[b]["ms"] for b in sorted(mpi1)]
    peer += [None for _ in mpi1]
    return bar_chart(
        os.path.join(OUT, "scaling-1-to-2.svg"),
        "Scaling from 1 to 2 threads (typed, 32 bits) and from 1 to 2 MPI ranks",
        "speed-up = time at 1 / time at 2; the machine has 2 cores",
        cats,
        [("encint", ours), ("TFHE-rs 1.8.2", peer)],
        "speed-up (x)",
        ref=2.0,
        ref_label="two cores: ideal",
        source="docs/bench/typed-*-1thread, typed-*-2threads, mpi-*-quiet (.json)",
    )


DEFAULT_KS32 = [
    "typed-default-vs-tfhe-ks32-2threads.json",
]
DEFAULT_OPS = [
    "add", "sub", "neg", "and", "xor", "shl(3)", "mul", "squ", "scalar_mul(805)", "shl_var",
    "rotl_var", "lt", "eq", "min", "max", "select", "div", "rem", "div(7)", "rem(7)",
]


def default_chart():
    """Every operation as encrypted (radix-4 blocks, the default form), TFHE-rs on KS32."""
    series = ratio_series(latest(DEFAULT_KS32), ("u8", "u16", "u32", "u64"), DEFAULT_OPS)
    return bar_chart(
        os.path.join(OUT, "typed-default-vs-tfhe-ks32-2threads.svg"),
        "Typed integers as encrypted: encint / TFHE-rs 1.8.2 on its KS32 set, 2 threads",
        "time ratio, unsigned (signed in docs/BENCHMARKS.md); operands in the form "
        "encryption gives (radix-4 blocks); below 1: encint is faster",
        DEFAULT_OPS,
        series,
        "ours / TFHE-rs (KS32)",
        ref=1.0,
        source="docs/bench/" + ", ".join(DEFAULT_KS32),
    )


def main():
    os.makedirs(OUT, exist_ok=True)
    written = [
        default_chart(),
        canonical_chart(),
        typed_chart(TYPED_2, 2),
        typed_chart(TYPED_1, 1),
        digits_chart(),
        bits_chart(),
        asm_chart(),
        fv_chart(),
        fv_bits_chart(),
        threads_chart(),
    ]
    for p in written:
        print(os.path.relpath(p, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
