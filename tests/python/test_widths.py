"""The typed family at every width, through Python's type names: random operations and
casts on values of every type `bool`, `u2` ... `u128`, `i1` ... `i128`, each compiled by
`encint.compile` and run in the clear (`run_clear`), against a reference written here on
plain Python ints from the semantics table of docs/PYTHON.md (wrapping arithmetic, floor
division and the divisor's sign for `%`, 0 for an encrypted zero divisor, shifts and
rotations modulo the width, casts that truncate or extend, `bool` as `x != 0`,
`abs(MIN) == MIN`). A sample runs on real keys; the 128-bit edges are checked one by one.

The seed is drawn per run and printed in every failure; `FHE_WIDTHS_SEED=n` replays it.
"""

import random

import pytest

import encint
import replay
from plain import bounds, parse, rotate, wrap
from replay import BUDGET

BINARY = ["+", "-", "*", "&", "|", "^", "min", "max", "//", "%", "<", "<=", ">", ">=", "==", "!="]
CLEAR = ["+", "-", "*", "&", "^", "//", "%", "<", "min"]
SHIFTS = ["<<", ">>", "rotl", "rotr"]
BOOL_ONLY = ["&", "|", "^", "==", "!="]


def seed():
    """This run's seed: `FHE_WIDTHS_SEED`, or one drawn now (printed)."""
    return replay.seed("FHE_WIDTHS_SEED")


def every_type():
    return ["bool"] + [f"u{n}" for n in range(2, 129)] + [f"i{n}" for n in range(1, 129)]


# --- the documented semantics on plain ints ----------------------------------------------


def binary(op, x, y, ty):
    """`x op y` for values `x`, `y` of `ty`, as docs/PYTHON.md's table says."""
    bits, _ = parse(ty)
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]
    if ty == "bool":
        return {"&": x & y, "|": x | y, "^": x ^ y}[op] == 1
    if op == "//":
        return 0 if y == 0 else wrap(x // y, ty)
    if op == "%":
        return 0 if y == 0 else wrap(x % y, ty)
    if op == "<<":
        return wrap(x << (y % bits), ty)
    if op == ">>":
        return x >> (y % bits)
    if op in ("rotl", "rotr"):
        return rotate(x, y, ty, op == "rotl")
    return wrap(
        {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y,
         "min": min(x, y), "max": max(x, y)}[op],
        ty,
    )


def expected(case, ty, args):
    kind = case[0]
    x = args[0]
    if kind == "binary":
        return binary(case[1], x, args[1], ty)
    if kind == "clear":
        _, op, k, swap = case
        return binary(op, k, x, ty) if swap else binary(op, x, k, ty)
    if kind == "shift":
        return binary(case[1], x, int(args[1]), ty)
    if kind == "shift_clear":
        return binary(case[1], x, case[2], ty)
    if kind == "not":
        return (not x) if ty == "bool" else wrap(~x, ty)
    if kind == "neg":
        return wrap(-x, ty)
    if kind == "square":
        return wrap(x * x, ty)
    if kind == "cast":
        return wrap(x, case[1])
    if kind == "abs":
        return wrap(abs(x), ty)
    if kind == "select":
        return args[1] if args[0] else args[2]
    raise AssertionError(case)


# --- cases -------------------------------------------------------------------------------


def amount_type(ty):
    """The type of a shift amount: unsigned of the same width (`bool` for one bit)."""
    bits, _ = parse(ty)
    return "bool" if bits == 1 else f"u{bits}"


def draw_case(rng, ty):
    if ty == "bool":
        return rng.choice([
            ("binary", rng.choice(BOOL_ONLY)),
            ("not",),
            ("select",),
            ("cast", rng.choice(every_type())),
        ])
    bits, _ = parse(ty)
    # Division and shifts by a value build the largest circuits: fewer of them when wide.
    heavy_ok = bits <= 32 or rng.random() < 0.15
    lo, hi = bounds(ty)
    while True:
        r = rng.randrange(10)
        if r < 2:
            case = ("binary", rng.choice(BINARY))
        elif r == 2:
            k = rng.choice([0, 1, 2, 3, lo, hi, rng.randint(lo, hi)])
            case = ("clear", rng.choice(CLEAR), max(lo, min(hi, k)), rng.random() < 0.3)
        elif r == 3:
            case = ("shift", rng.choice(SHIFTS))
        elif r == 4:
            case = ("shift_clear", rng.choice(SHIFTS), rng.randrange(300))
        elif r == 5:
            case = (rng.choice(["not", "neg", "square"]),)
        elif r in (6, 7):
            case = ("cast", rng.choice(every_type()))
        else:
            case = (rng.choice(["abs", "select"]),)
        heavy = case[:2] in (("binary", "//"), ("binary", "%"), ("binary", "*")) or case[0] == "shift"
        zero = case[0] == "clear" and case[1] in ("//", "%") and case[2] == 0 and not case[3]
        if (heavy_ok or not heavy) and not zero:
            return case


def arguments(case, ty):
    if case[0] == "binary":
        return [ty, ty]
    if case[0] == "shift":
        return [ty, amount_type(ty)]
    if case[0] == "select":
        return ["bool", ty, ty]
    return [ty]


def function(case):
    kind = case[0]
    ops = {
        "+": lambda p, q: p + q, "-": lambda p, q: p - q, "*": lambda p, q: p * q,
        "&": lambda p, q: p & q, "|": lambda p, q: p | q, "^": lambda p, q: p ^ q,
        "//": lambda p, q: p // q, "%": lambda p, q: p % q,
        "<": lambda p, q: p < q, "<=": lambda p, q: p <= q, ">": lambda p, q: p > q,
        ">=": lambda p, q: p >= q, "==": lambda p, q: p == q, "!=": lambda p, q: p != q,
        "min": lambda p, q: encint.min(p, q), "max": lambda p, q: p.max(q),
        "<<": lambda p, q: p << q, ">>": lambda p, q: p >> q,
        "rotl": lambda p, q: p.rotate_left(q), "rotr": lambda p, q: p.rotate_right(q),
    }
    if kind in ("binary", "shift"):
        return lambda x, y: ops[case[1]](x, y)
    if kind == "clear":
        _, op, k, swap = case
        if swap:
            # A clear left operand: Python's reflected operators (min is symmetric).
            return lambda x: ops[op](k, x) if op != "min" else encint.min(k, x)
        return lambda x: ops[op](x, k)
    if kind == "shift_clear":
        return lambda x: ops[case[1]](x, case[2])
    if kind == "not":
        return lambda x: ~x
    if kind == "neg":
        return lambda x: -x
    if kind == "square":
        return lambda x: x.square()
    if kind == "cast":
        return lambda x: x.cast(case[1])
    if kind == "abs":
        return lambda x: abs(x)
    if kind == "select":
        return lambda c, x, y: encint.where(c, x, y)
    raise AssertionError(case)


def values(rng, ty):
    """Edges and random values of `ty` that an argument takes (u128: up to 2**127 - 1,
    as encryption does; larger values arise from operations)."""
    if ty == "bool":
        return [False, True]
    lo, hi = bounds(ty)
    if ty == "u128":
        hi = 2**127 - 1
    v = [lo, hi, 0, 1 if hi >= 1 else 0] + ([-1] if lo < 0 else [])
    return v + [rng.randint(lo, hi) for _ in range(3)]


def draw_args(rng, types):
    return [rng.choice(values(rng, t)) for t in types]


# --- tests -------------------------------------------------------------------------------


def test_the_reference_follows_the_documented_table():
    # Rows of docs/PYTHON.md's table worked by hand, so the reference is not itself wrong.
    assert binary("//", -7, 2, "i5") == -4 and binary("%", -7, 2, "i5") == 1
    assert binary("%", 7, -2, "i5") == -1 and binary("//", 7, 0, "u3") == 0
    assert binary("//", -16, -1, "i5") == -16 and binary("%", -16, -1, "i5") == 0
    assert wrap(5, "i1") == -1 and wrap(4, "i1") == 0 and wrap(4, "bool") is True
    assert wrap(-1, "u37") == 2**37 - 1 and wrap(2**36, "i37") == -(2**36)
    assert binary(">>", -8, 33, "i5") == -8 >> 3 and binary("<<", 1, 128, "u128") == 1
    assert rotate(1, 1, "u3", False) == 4 and rotate(-16, 1, "i5", True) == 1
    assert expected(("abs",), "i8", [-128]) == -128


def test_type_names():
    # Names of any width, the long aliases, i1 and bool; u1 is refused with a pointer to
    # bool, widths outside 1..=128 are a LimitError.
    for name, value, want in [("u37", 2**37 - 1, 2**37 - 1), ("uint37", 5, 5), ("i1", -1, -1),
                              ("int1", 0, 0), ("bool", True, True), ("i128", -(2**127), -(2**127))]:
        assert encint.compile(lambda x: x, name).run_clear(value) == want, name
    assert encint.FheUint(37).__name__ == "FheUint37" and encint.FheInt(1)._type == "i1"
    for refused in ("u1", "uint1"):
        with pytest.raises(encint.InvalidInputError, match="`bool`"):
            encint.compile(lambda x: x, refused)
    with pytest.raises(encint.InvalidInputError):
        encint.FheUint(1)
    for width in ("u0", "u129", "i200"):
        with pytest.raises(encint.LimitError):
            encint.compile(lambda x: x, width)


def test_every_width_in_the_clear():
    s = seed()
    rng = random.Random(s)
    checked = 0
    for ty in every_type():
        for _ in range(4):
            case = draw_case(rng, ty)
            types = arguments(case, ty)
            try:
                f = encint.compile(function(case), *types)
            except encint.Error as e:
                raise AssertionError(f"FHE_WIDTHS_SEED={s}: {case} on {ty}: {e!r}") from e
            cost = f.cost()
            assert cost["max_qweight"] <= BUDGET, f"FHE_WIDTHS_SEED={s}: {case} on {ty}: {cost}"
            for _ in range(4):
                args = draw_args(rng, types)
                got = f.run_clear(*args)
                want = expected(case, ty, args)
                assert got == want and type(got) is type(want), (
                    f"FHE_WIDTHS_SEED={s}: {case} on {ty} {args}: run_clear gives {got!r}, "
                    f"the documented semantics {want!r}"
                )
                checked += 1
    assert checked == len(every_type()) * 16


def test_u128_and_i128_edges():
    top = 2**128 - 1
    u = lambda f, *t: encint.compile(f, *(t or ("u128",)))  # noqa: E731
    # Arguments above 2**127 - 1 are refused as encryption refuses them, the message
    # naming the value given (it used to name its 128-bit pattern read as signed,
    # -2**127 for 2**127).
    for v in (2**127, 2**127 + 5, top):
        for run in (lambda: u(lambda x: x).run_clear(v),
                    lambda: u(lambda x, y: x + y, "u128", "u128").run_clear(1, v),
                    lambda: u(lambda a: a.sum(), ("u128", (2,))).run_clear([1, v])):
            with pytest.raises(encint.InvalidInputError) as e:
                run()
            assert str(v) in str(e.value) and f"-{(1 << 128) - v}" not in str(e.value), e.value
    # Results above 2**127 - 1 come back as the ints they are.
    big = 2**127 - 1
    add = u(lambda x, y: x + y, "u128", "u128")
    assert add.run_clear(big, big) == 2**128 - 2 and add.run_clear(big, 1) == 2**127
    assert u(lambda x: ~x).run_clear(0) == top and u(lambda x: x - 1).run_clear(0) == top
    assert u(lambda x: -x).run_clear(1) == top
    assert u(lambda x: x.cast("u128"), "i8").run_clear(-1) == top
    assert u(lambda x: x.cast("u128"), "i128").run_clear(-(2**127)) == 2**127
    # Clear operands above 2**127 - 1, divisors included, on values reached above it.
    pairs = [(big, big), (big, 1), (big, 0), (5, 7), (2**126, 2**126 + 3)]
    for k in (2**127 + 1, top):
        f = u(lambda p, q: (
            (p + q) // k, (p + q) % k, (p + q) > k, (p + q) + k, (p + q).min(k),
            encint.where((p + q) > 2**127, k, p + q),
        ), "u128", "u128")
        for a, b in pairs:
            x = a + b
            want = (x // k, x % k, x > k, (x + k) % 2**128, min(x, k), k if x > 2**127 else x)
            assert f.run_clear(a, b) == want, (a, b, k)
    # A clear dividend above it (a division by a value: one function).
    f = u(lambda p, q: (top // (p + q), top % (p + q)), "u128", "u128")
    for a, b in pairs + [(0, 0)]:
        x = a + b
        assert f.run_clear(a, b) == ((top // x, top % x) if x else (0, 0)), (a, b)
    # i128: the minimum through negation, abs, division and remainder by -1.
    lo = -(2**127)
    i = encint.compile(lambda x: (-x, abs(x), x // -1, x % -1, x - 1, x >> 127, x.cast("i8")),
                       "i128")
    assert i.run_clear(lo) == (lo, lo, lo, 0, 2**127 - 1, -1, 0)
    assert encint.compile(lambda x, y: (x // y, x % y), "i128", "i128").run_clear(lo, -1) == (lo, 0)
    with pytest.raises(encint.InvalidInputError, match=str(2**127)):
        encint.compile(lambda x: x, "i128").run_clear(2**127)


def test_a_sample_on_real_keys(keys):
    # Eight random cases on types of 1 to 12 bits, encrypted as a client does.
    ck, _ = keys
    s = seed()
    rng = random.Random(s + 1)
    narrow = [t for t in every_type() if parse(t)[0] <= 12]
    for _ in range(8):
        ty = rng.choice(narrow)
        case = draw_case(rng, ty)
        types = arguments(case, ty)
        f = encint.compile(function(case), *types)
        args = draw_args(rng, types)
        got = f.run(*[ck.encrypt(v, t) for v, t in zip(args, types)]).decrypt(ck)
        want = expected(case, ty, args)
        assert got == want, f"FHE_WIDTHS_SEED={s}: {case} on {ty} {args}: {got!r}, want {want!r}"
