"""Random programs over the typed family (u8, i8, u16, i16), each traced by
`encint.compile` into one circuit (so the planner chooses sums, dot products, forms and
algorithms across the whole program) and run by the clear executor (`run_clear`) on random
and edge inputs, against the same program evaluated here on plain Python ints from the
semantics of docs/PYTHON.md (wrapping arithmetic, floor division, `%` with the divisor's
sign, 0 for an encrypted zero divisor, shifts and rotations modulo the width, casts that
truncate or extend). A few programs also run on real keys. Every register is an output, so
a wrong intermediate value fails even where later steps would hide it.

A program mixes additions, subtractions, products, clear constants on either side,
minimum and maximum, comparisons selecting values (`encint.where`, `select`), sums and dot
products of arrays, bitwise logic, shifts and rotations by clear and encrypted amounts,
`//` and `%` by values and by clear constants, casts, `abs` and negation, and the shapes
that once broke the rewriting: identities (`x + 0`, `x - 0`, `x * 1`, `x << 0`, `x | 0`,
`x ^ 0`), a value reached by two paths (`(a + b) - b`), repeated operands (`a * a`,
`a - a`) and products of two handles of one value (`(a + 0) * (a << 0)`).

The seed is drawn per run and printed in every failure; `FHE_RANDOM_SEED=n` replays it.
"""

import random

import pytest

import encint
import replay
from plain import bounds, rotate, wrap
from replay import BUDGET

INPUTS = 4

# Each type: (bits, signed, a narrower and a wider type to cast through, of the other
# signedness, the unsigned type of its width for shift amounts, programs in the sweep,
# most large steps per program).
TYPES = {
    "u8": (8, False, "i5", "i13", "u8", 600, 3),
    "i8": (8, True, "u3", "u16", "u8", 600, 3),
    "u16": (16, False, "i8", "i24", "u16", 400, 1),
    "i16": (16, True, "u8", "u32", "u16", 400, 1),
}

# Steps whose circuits are large at 16 bits: division and remainder by a value, shifts and
# rotations by a value.
HEAVY = {"div", "mod", "shlv", "shrv", "rotlv", "rotrv"}

# Steps of one register, and those whose second field is a constant rather than a register.
UNARY = {"square", "not", "narrow", "wide", "tobool", "abs", "neg", "twohandles"}
CONSTANT = {"mulc", "addc", "rsubc", "divc", "modc", "shrc", "shlc", "rotlc", "rotrc", "same"}

RELATIONS = {
    "lt": lambda p, q: p < q,
    "le": lambda p, q: p <= q,
    "gt": lambda p, q: p > q,
    "ge": lambda p, q: p >= q,
    "eq": lambda p, q: p == q,
    "ne": lambda p, q: p != q,
}


def seed():
    """This run's seed: `FHE_RANDOM_SEED`, or one drawn now (printed)."""
    return replay.seed("FHE_RANDOM_SEED")


# --- plain semantics (docs/PYTHON.md) -----------------------------------------------------


def floordiv(a, b, ty):
    return 0 if b == 0 else wrap(a // b, ty)


def mod(a, b, ty):
    return 0 if b == 0 else wrap(a % b, ty)


# --- programs ----------------------------------------------------------------------------


def draw_program(rng, ty, length):
    """A random program: each step a tuple (kind, register indices..., constants...)
    reading registers defined before it (recent ones more often, often one twice)."""
    lo, hi = bounds(ty)
    bits = TYPES[ty][0]

    def const():
        return rng.choice([0, 1, 2, 3, 7, lo, hi, rng.randint(lo, hi)])

    def nonzero():
        c = 0
        while c == 0:
            c = rng.choice([1, 2, 3, 5, 7, hi, lo, -1, -3, rng.randint(lo, hi)])
            c = c if lo <= c <= hi else 0
        return c

    steps = []
    for k in range(length):
        defined = INPUTS + k

        def pick():
            if rng.random() < 0.5:
                return defined - 1 - rng.randrange(min(defined, 3))
            return rng.randrange(defined)

        a = pick()
        b = a if rng.random() < 0.15 else pick()
        c, d = pick(), pick()
        kind = rng.choice(
            "add sub mul square mulc addc rsubc min max select where sum3 dot2 xor and or "
            "not shrc shlc rotlc rotrc shlv shrv rotlv rotrv div mod divc modc "
            "narrow wide tobool abs neg same same same detour detour twohandles".split()
        )
        if kind in ("mulc", "addc", "rsubc"):
            steps.append((kind, a, const()))
        elif kind in ("divc", "modc"):
            steps.append((kind, a, nonzero()))
        elif kind in ("shrc", "shlc", "rotlc", "rotrc"):
            steps.append((kind, a, rng.choice([0, 1, bits - 1, bits, rng.randrange(3 * bits)])))
        elif kind in ("select", "where"):
            steps.append((kind, a, b, c, d, rng.choice(sorted(RELATIONS))))
        elif kind == "sum3":
            steps.append((kind, a, b, c))
        elif kind == "dot2":
            steps.append((kind, a, b, c, d))
        elif kind == "same":
            steps.append((kind, a, rng.randrange(6)))
        elif kind in UNARY:
            steps.append((kind, a))
        else:
            steps.append((kind, a, b))
    return steps


def heavy(steps):
    return sum(s[0] in HEAVY for s in steps)


def traced(steps, ty):
    """The program as a function of `INPUTS` traced values: every register it defines."""
    _, _, narrow, wide, unsigned, _, _ = TYPES[ty]
    is_unsigned = ty == unsigned

    def amount(v):
        return v if is_unsigned else v.cast(unsigned)

    def relate(rel, p, q):
        return {
            "lt": lambda: p < q,
            "le": lambda: p <= q,
            "gt": lambda: p > q,
            "ge": lambda: p >= q,
            "eq": lambda: p == q,
            "ne": lambda: p != q,
        }[rel]()

    def f(*x):
        r = list(x)
        for s in steps:
            kind, a = s[0], r[s[1]]
            if kind == "add":
                v = a + r[s[2]]
            elif kind == "sub":
                v = a - r[s[2]]
            elif kind == "mul":
                v = a * r[s[2]]
            elif kind == "square":
                v = a.square()
            elif kind == "mulc":
                v = s[2] * a
            elif kind == "addc":
                v = a + s[2]
            elif kind == "rsubc":
                v = s[2] - a
            elif kind == "min":
                v = encint.min(a, r[s[2]]) if s[1] % 2 else a.min(r[s[2]])
            elif kind == "max":
                v = encint.max(a, r[s[2]]) if s[1] % 2 else a.max(r[s[2]])
            elif kind == "select":
                v = relate(s[5], a, r[s[2]]).select(r[s[3]], r[s[4]])
            elif kind == "where":
                v = encint.where(relate(s[5], a, r[s[2]]), r[s[3]], r[s[4]])
            elif kind == "sum3":
                v = encint.FheArray.from_values([a, r[s[2]], r[s[3]]]).sum()
            elif kind == "dot2":
                u = encint.FheArray.from_values([a, r[s[2]]])
                w = encint.FheArray.from_values([r[s[3]], r[s[4]]])
                v = encint.dot(u, w)
            elif kind == "xor":
                v = a ^ r[s[2]]
            elif kind == "and":
                v = a & r[s[2]]
            elif kind == "or":
                v = a | r[s[2]]
            elif kind == "not":
                v = ~a
            elif kind == "shrc":
                v = a >> s[2]
            elif kind == "shlc":
                v = a << s[2]
            elif kind == "rotlc":
                v = a.rotate_left(s[2])
            elif kind == "rotrc":
                v = a.rotate_right(s[2])
            elif kind == "shlv":
                v = a << amount(r[s[2]])
            elif kind == "shrv":
                v = a >> amount(r[s[2]])
            elif kind == "rotlv":
                v = a.rotate_left(amount(r[s[2]]))
            elif kind == "rotrv":
                v = a.rotate_right(amount(r[s[2]]))
            elif kind == "div":
                v = a // r[s[2]]
            elif kind == "mod":
                v = a % r[s[2]]
            elif kind == "divc":
                v = a // s[2]
            elif kind == "modc":
                v = a % s[2]
            elif kind == "narrow":
                v = a.cast(narrow).cast(ty)
            elif kind == "wide":
                v = a.cast(wide).cast(ty)
            elif kind == "tobool":
                v = a.cast("bool").cast(ty)
            elif kind == "abs":
                v = abs(a)
            elif kind == "neg":
                v = -a
            elif kind == "same":
                v = [a + 0, a - 0, a * 1, a << 0, a | 0, a ^ 0][s[2]]
            elif kind == "detour":
                v = (a + r[s[2]]) - r[s[2]]
            elif kind == "twohandles":
                v = (a + 0) * (a << 0)
            else:
                raise AssertionError(kind)
            r.append(v)
        return tuple(r[len(x):])

    return f


def plain(steps, ty, x):
    """The program on plain ints, from the documented semantics: every register."""
    _, _, narrow, wide, unsigned, _, _ = TYPES[ty]
    bits = TYPES[ty][0]
    w = lambda v: wrap(v, ty)  # noqa: E731

    def amount(v):
        return wrap(v, unsigned) % bits

    r = list(x)
    for s in steps:
        kind, a = s[0], r[s[1]]
        b = r[s[2]] if len(s) > 2 and kind not in CONSTANT else None
        if kind == "add":
            v = w(a + b)
        elif kind == "sub":
            v = w(a - b)
        elif kind == "mul":
            v = w(a * b)
        elif kind == "square":
            v = w(a * a)
        elif kind == "mulc":
            v = w(s[2] * a)
        elif kind == "addc":
            v = w(a + s[2])
        elif kind == "rsubc":
            v = w(s[2] - a)
        elif kind == "min":
            v = min(a, b)
        elif kind == "max":
            v = max(a, b)
        elif kind in ("select", "where"):
            v = r[s[3]] if RELATIONS[s[5]](a, b) else r[s[4]]
        elif kind == "sum3":
            v = w(a + b + r[s[3]])
        elif kind == "dot2":
            v = w(a * r[s[3]] + b * r[s[4]])
        elif kind == "xor":
            v = w(a ^ b)
        elif kind == "and":
            v = w(a & b)
        elif kind == "or":
            v = w(a | b)
        elif kind == "not":
            v = w(~a)
        elif kind == "shrc":
            v = a >> (s[2] % bits)
        elif kind == "shlc":
            v = w(a << (s[2] % bits))
        elif kind == "rotlc":
            v = rotate(a, s[2], ty, True)
        elif kind == "rotrc":
            v = rotate(a, s[2], ty, False)
        elif kind == "shlv":
            v = w(a << amount(b))
        elif kind == "shrv":
            v = a >> amount(b)
        elif kind == "rotlv":
            v = rotate(a, amount(b), ty, True)
        elif kind == "rotrv":
            v = rotate(a, amount(b), ty, False)
        elif kind == "div":
            v = floordiv(a, b, ty)
        elif kind == "mod":
            v = mod(a, b, ty)
        elif kind == "divc":
            v = floordiv(a, s[2], ty)
        elif kind == "modc":
            v = mod(a, s[2], ty)
        elif kind == "narrow":
            v = w(wrap(a, narrow))
        elif kind == "wide":
            v = w(wrap(a, wide))
        elif kind == "tobool":
            v = int(a != 0)
        elif kind == "abs":
            v = w(abs(a))
        elif kind == "neg":
            v = w(-a)
        elif kind in ("same", "detour"):
            v = a
        elif kind == "twohandles":
            v = w(a * a)
        else:
            raise AssertionError(kind)
        r.append(v)
    return r[len(x):]


def inputs(rng, ty):
    """Six random inputs and the edges: all zero, all maximum, all minimum, mixed."""
    lo, hi = bounds(ty)
    cases = [[rng.randint(lo, hi) for _ in range(INPUTS)] for _ in range(6)]
    cases += [[0] * INPUTS, [hi] * INPUTS, [lo] * INPUTS, [lo, hi, 0, 1]]
    return cases


def draw(rng, ty, max_len=10):
    """A program of `ty` within the sweep's bound on large steps."""
    max_heavy = TYPES[ty][6]
    while True:
        steps = draw_program(rng, ty, rng.randint(3, max_len))
        if heavy(steps) <= max_heavy:
            return steps


# --- the reference itself ----------------------------------------------------------------


def test_the_reference_follows_the_documented_table():
    # A few rows of docs/PYTHON.md's table, worked by hand, so that the reference the
    # sweep trusts is not itself wrong.
    assert floordiv(-7, 2, "i8") == -4 and mod(-7, 2, "i8") == 1
    assert floordiv(7, -2, "i8") == -4 and mod(7, -2, "i8") == -1
    assert floordiv(-128, -1, "i8") == -128 and mod(-128, -1, "i8") == 0
    assert floordiv(5, 0, "u8") == 0 and mod(5, 0, "u8") == 0
    assert rotate(0b1000_0001, 1, "u8", True) == 0b0000_0011
    assert rotate(-128, 1, "i8", False) == 64
    assert wrap(300, "u8") == 44 and wrap(200, "i8") == -56 and wrap(-1, "u16") == 65535
    assert wrap(-3, "bool") == 1 and wrap(wrap(-1, "u3"), "i8") == 7
    assert plain([("shrv", 0, 1)], "i8", [-128, -1, 0, 0]) == [-1]  # -1 as u8 is 255: 7
    assert plain([("shlc", 0, 9)], "u8", [3, 0, 0, 0]) == [6]  # 9 mod 8


# --- the sweep ---------------------------------------------------------------------------


@pytest.mark.parametrize("ty", sorted(TYPES))
def test_random_programs_in_the_clear(ty):
    s = seed()
    rng = random.Random(f"{s}-{ty}")
    count = TYPES[ty][5]
    f_args = [ty] * INPUTS
    for n in range(count):
        steps = draw(rng, ty)
        where = f"FHE_RANDOM_SEED={s}: program {n} of {ty} {steps}"
        try:
            f = encint.compile(traced(steps, ty), *f_args)
        except encint.Error as e:
            raise AssertionError(f"{where} does not compile: {e!r}") from e
        cost = f.cost()
        assert cost["max_qweight"] <= BUDGET, f"{where}: past the noise budget: {cost}"
        for x in inputs(rng, ty):
            got = list(f.run_clear(*x))
            want = plain(steps, ty, x)
            assert got == want, (
                f"{where} on {x}: run_clear gives {got}, the documented semantics {want}"
            )


def test_random_programs_on_real_keys(keys):
    # Six programs (three u8, three i8) on real keys, their arguments encrypted as a client
    # does, every register decrypted; programs over 400 bootstraps are drawn again, to keep
    # the run short.
    ck, _ = keys
    s = seed()
    rng = random.Random(f"{s}-real")
    for n in range(6):
        ty = "u8" if n < 3 else "i8"
        while True:
            steps = draw(rng, ty, max_len=7)
            f = encint.compile(traced(steps, ty), *[ty] * INPUTS)
            if f.cost()["bootstraps"] <= 400:
                break
        x = inputs(rng, ty)[rng.randrange(10)]
        where = f"FHE_RANDOM_SEED={s}: {ty} {steps} on {x}"
        try:
            out = f.run(*[ck.encrypt(v, ty) for v in x])
        except encint.Error as e:
            raise AssertionError(f"{where}: {e!r}") from e
        got = [o.decrypt(ck) for o in out]
        want = plain(steps, ty, x)
        assert got == want, f"{where}: {got}, want {want}"
        assert list(f.run_clear(*x)) == want
