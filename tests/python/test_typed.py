"""The typed family (``encint.FheUint8``, ``FheInt16``, ...) against a reference in plain
Python ints with NumPy's integer semantics: wide sweeps of every operation's circuit on
plain values (``encint.compile(...).run_clear``: the circuits that run on ciphertexts, on
the clear executor), a sample with real keys, the conversions to and from exact integers,
files, and bad input."""

import operator
import pickle

import numpy as np
import pytest

import encint

TYPES = ["u3", "i3", "u8", "i8", "i16"]


def width(ty):
    return int(ty[1:]), ty[0] == "i"


def lo_hi(bits, signed):
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def wrap(v, bits, signed):
    u = v % (1 << bits)
    return u - (1 << bits) if signed and u >= 1 << (bits - 1) else u


def values(rng, ty, n):
    lo, hi = lo_hi(*width(ty))
    edge = sorted({lo, hi, 0, min(1, hi), max(-1, lo)})
    return edge + [rng.randint(lo, hi) for _ in range(n)]


def floordiv(a, b, n, s):
    """NumPy's ``//``: floor division, 0 for a zero divisor, ``MIN // -1 == MIN``."""
    return 0 if b == 0 else wrap(a // b, n, s)


def mod(a, b, n, s):
    """NumPy's ``%``: the divisor's sign, 0 for a zero divisor."""
    return 0 if b == 0 else wrap(a % b, n, s)


BINARY = {
    "add": (operator.add, lambda a, b, n, s: wrap(a + b, n, s)),
    "sub": (operator.sub, lambda a, b, n, s: wrap(a - b, n, s)),
    "mul": (operator.mul, lambda a, b, n, s: wrap(a * b, n, s)),
    "floordiv": (operator.floordiv, floordiv),
    "mod": (operator.mod, mod),
    "and": (operator.and_, lambda a, b, n, s: wrap(a & b, n, s)),
    "or": (operator.or_, lambda a, b, n, s: wrap(a | b, n, s)),
    "xor": (operator.xor, lambda a, b, n, s: wrap(a ^ b, n, s)),
    "lt": (operator.lt, lambda a, b, n, s: a < b),
    "le": (operator.le, lambda a, b, n, s: a <= b),
    "gt": (operator.gt, lambda a, b, n, s: a > b),
    "ge": (operator.ge, lambda a, b, n, s: a >= b),
    "eq": (operator.eq, lambda a, b, n, s: a == b),
    "ne": (operator.ne, lambda a, b, n, s: a != b),
    "min": (lambda x, y: x.min(y), lambda a, b, n, s: min(a, b)),
    "max": (lambda x, y: encint.max(x, y), lambda a, b, n, s: max(a, b)),
}
NAMES = sorted(BINARY)
# The operations with a clear left operand (an int has no `min` method).
LEFT = ["add", "sub", "mul", "floordiv", "mod", "and", "or", "xor", "lt", "eq", "max"]


def all_binary(x, y, names=NAMES):
    return tuple(BINARY[name][0](x, y) for name in names)


@pytest.mark.parametrize("ty", TYPES)
def test_binary_operations_sweep(rng, ty):
    """Every binary operation on two values (one circuit for all of them), then with an
    int on either side."""
    n, s = width(ty)
    f = encint.compile(all_binary, ty, ty)
    vs = values(rng, ty, 4)
    pairs = [(a, b) for a in vs for b in vs]
    rng.shuffle(pairs)
    for a, b in pairs[:24]:
        got = f.run_clear(a, b)
        want = tuple(BINARY[name][1](a, b, n, s) for name in NAMES)
        assert got == want, (ty, a, b, list(zip(NAMES, got, want)))
        for name, r in zip(NAMES, got):
            if name in ("lt", "le", "gt", "ge", "eq", "ne"):
                assert isinstance(r, bool)
    # A clear operand (not a zero divisor) on the right, then on the left.
    for b in vs[:2] + [rng.choice(vs[2:])]:
        names = [name for name in NAMES if b != 0 or name not in ("floordiv", "mod")]
        right = encint.compile(lambda x: all_binary(x, b, names), ty)
        left = encint.compile(lambda x: tuple(BINARY[name][0](b, x) for name in LEFT), ty)
        for a in vs[:4]:
            assert right.run_clear(a) == tuple(BINARY[m][1](a, b, n, s) for m in names), (ty, a, b)
            want = tuple(BINARY[m][1](b, a, n, s) for m in LEFT)
            assert left.run_clear(a) == want, (ty, b, a)


@pytest.mark.parametrize("ty", TYPES)
def test_unary_operations_shifts_and_casts(rng, ty):
    n, s = width(ty)
    unsigned = f"u{n}" if n > 1 else "bool"
    opposite = f"i{n}" if not s else unsigned
    casts = ["bool", opposite, f"i{n + 5}", f"u{n + 5}", "u2"]
    k = lo_hi(n, s)[1]  # the largest clear value of the type
    f = encint.compile(
        lambda x: (-x, ~x, x.square(), abs(x), x * k + k) + tuple(x.cast(t) for t in casts), ty
    )
    by = encint.compile(
        lambda x, a: (x << a, x >> a, x.rotate_left(a), x.rotate_right(a)), ty, unsigned
    )
    for a in values(rng, ty, 5):
        u = a % (1 << n)
        want = (
            wrap(-a, n, s),
            wrap(~a, n, s),
            wrap(a * a, n, s),
            wrap(abs(a), n, s),
            wrap(a * k + k, n, s),
            a != 0,
            wrap(a, n, not s),
            a,
            wrap(a, n + 5, False),
            a % 4,
        )
        assert f.run_clear(a) == want, (ty, a)
        for amount in (0, 1, n - 1, n, n + 3):
            m = amount % n
            rl = ((u << m) | (u >> (n - m))) % (1 << n)
            rr = ((u >> m) | (u << (n - m))) % (1 << n)
            shifts = (wrap(a << m, n, s), a >> m, wrap(rl, n, s), wrap(rr, n, s))
            # By an encrypted unsigned amount of the width (read modulo the width)...
            assert by.run_clear(a, amount % (1 << n)) == shifts, (ty, a, amount)
            # ... and by a clear one.
            clear = encint.compile(
                lambda x: (x << amount, x >> amount, x.rotate_left(amount), x.rotate_right(amount)),
                ty,
            )
            assert clear.run_clear(a) == shifts, (ty, a, amount)


def test_booleans_select_and_where(rng):
    f = encint.compile(
        lambda c, x, y: (c.select(x, y), encint.where(c, 5, y), c & (x < y), ~c, c ^ (x == y)),
        "bool",
        "i8",
        "i8",
    )
    for _ in range(8):
        c, a, b = rng.random() < 0.5, rng.randint(-128, 127), rng.randint(-128, 127)
        assert f.run_clear(c, a, b) == (a if c else b, 5 if c else b, c and a < b, not c, c != (a == b))
    m = encint.compile(lambda x, y: (x < y).select(x, y), "u8", "u8")
    assert m.run_clear(200, 100) == 100 and m.run_clear(3, 4) == 3


def test_arrays_on_plain_values(rng):
    f = encint.compile(lambda v, w: (v.sum(), v.max(), v * 3, v @ w, encint.where(v > 2, v, 0)),
                       ("u8", (2, 2)), ("u8", (2, 2)))
    v = np.array([[1, 2], [3, 100]])
    w = np.array([[5, 0], [7, 1]])
    total, top, triple, prod, kept = f.run_clear(v, w)
    assert total == 106 and top == 100
    np.testing.assert_array_equal(triple, (v * 3) % 256)
    np.testing.assert_array_equal(prod, (v @ w) % 256)
    np.testing.assert_array_equal(kept, np.where(v > 2, v, 0))
    assert triple.dtype == np.uint8 and kept.dtype == np.uint8


def test_wide_types():
    f = encint.compile(lambda x: (x * 2 + 9, x ^ 5, x.cast("u64")), "u128")
    x = 2**127 - 5
    assert f.run_clear(x) == ((2 * x + 9) % 2**128, x ^ 5, x % 2**64)
    w = 2**64 - 7
    g = encint.compile(lambda x: (x // 3, x % 1000), "u64")
    assert g.run_clear(w) == (w // 3, w % 1000)
    y = -(1 << 63)
    h = encint.compile(lambda y: (y // -1, y * y, y.cast("i128"), y.cast("u64")), "i64")
    assert h.run_clear(y) == (y, 0, y, 1 << 63)  # MIN // -1 == MIN


def test_bad_input_raises():
    with pytest.raises(encint.InvalidInputError):
        encint.compile(lambda x, y: x + y, "i8", "u8")  # different types
    with pytest.raises(encint.InvalidInputError):
        encint.compile(lambda x: x + 256, "u8")  # not a u8
    with pytest.raises(encint.InvalidInputError):
        encint.compile(lambda x: x * -1, "u8")
    with pytest.raises(encint.InvalidInputError):
        encint.compile(lambda x: x << -1, "u8")
    with pytest.raises(ZeroDivisionError):
        encint.compile(lambda x: x // 0, "u8")
    with pytest.raises(ZeroDivisionError):
        encint.compile(lambda x: x % 0, "i8")
    with pytest.raises(TypeError):
        encint.compile(lambda x: x + "1", "u8")
    with pytest.raises(TypeError):
        encint.compile(lambda x: x if x < 3 else x, "u8")  # no truth value
    f = encint.compile(lambda x: x + 1, "u8")
    with pytest.raises(encint.InvalidInputError):
        f.run_clear(256)
    with pytest.raises(encint.InvalidInputError):
        f.run_clear(1, 2)
    for bits in (0, 129):
        with pytest.raises(encint.LimitError):
            encint.FheUint(bits)
    with pytest.raises(encint.LimitError):
        encint.compile(lambda x: x.cast("u0"), "u8")
    # The family needs a real key: its clear mode is `run_clear`.
    with pytest.raises(encint.InvalidInputError):
        encint.ClientKey.clear().encrypt(1, "u8")
    with pytest.raises(encint.InvalidInputError):
        encint.FheUint8.from_int(encint.ClientKey.clear().encrypt(1, 8))


def test_typed_real_keys(keys):
    ck, _ = keys
    # 4-bit types keep the sample cheap (the sweeps above run the same circuits).
    a, b = ck.encrypt(13, "u4"), ck.encrypt(3, "u4")
    assert ck.decrypt(a + b) == (13 + 3) % 16
    assert ck.decrypt(a * b) == (13 * 3) % 16
    assert ck.decrypt(a // b) == 13 // 3
    assert ck.decrypt(a % 3) == 13 % 3
    assert ck.decrypt(a < b) is False
    s = ck.encrypt(-7, "i4")
    assert ck.decrypt(s // 2) == -7 // 2  # floor, like NumPy
    assert ck.decrypt(s >> 1) == -4
    assert ck.decrypt((s + s).cast("i8")) == 2  # -14 wraps to 2 in i4
    # NumPy dtype names.
    assert (a.dtype, s.dtype, (a < b).dtype) == ("uint8", "int8", "bool")
    assert ck.encrypt(1, "u40").dtype == "uint64" and ck.encrypt(1, "i100").dtype == "object"
    # Exact integers in and out: free for canonical digits, a circuit for a result.
    assert ck.decrypt(a.to_int()) == 13 and ck.decrypt(s.to_int()) == -7
    assert isinstance(a.to_int(), encint.EncInt)
    assert ck.decrypt((s + s).to_int()) == 2
    e = ck.encrypt(-4095, 12)
    t = encint.FheUint(4).from_int(e)
    assert type(t) is encint.FheUint(4) and ck.decrypt(t) == -4095 % 16
    assert ck.decrypt(t + a) == (-4095 + 13) % 16
    assert ck.decrypt(encint.FheInt8.from_int(e)) == wrap(-4095, 8, True)
    with pytest.raises(encint.InvalidInputError):
        encint.FheValue.from_int(e)  # no type
    # Files: the type and the digits' form kept, wrong kinds and truncation refused.
    lazy = a * 3
    data = lazy.to_bytes()
    back = encint.FheUint(4).from_bytes(data)
    assert back.type == "u4" and ck.decrypt(back) == 39 % 16
    assert ck.decrypt(encint.FheValue.from_bytes(data)) == 39 % 16
    assert ck.decrypt(pickle.loads(pickle.dumps(s))) == -7
    with pytest.raises(encint.InvalidInputError):
        encint.FheInt(4).from_bytes(data)
    with pytest.raises(encint.FormatError):
        encint.FheValue.from_bytes(data[:-3])
    with pytest.raises(encint.Error):
        encint.FheValue.from_bytes(ck.encrypt(5, 8).to_bytes())  # an EncInt envelope
    with pytest.raises(encint.KeyRoleError, match="FheValue"):
        encint.EncInt.from_bytes(data)


def test_conversions_between_exact_and_typed(keys, rng):
    """`Class.from_int` keeps the value modulo 2**N (as a cast does), `FheValue.to_int`
    gives the exact value back, for canonical digits and for an operation's result."""
    ck, _ = keys
    for _ in range(3):
        a = rng.randrange(-(2**29), 2**29)
        ea = ck.encrypt(a, 30)
        t = encint.FheInt16.from_int(ea)
        assert ck.decrypt(t) == wrap(a, 16, True)
        assert ck.decrypt(t.to_int()) == wrap(a, 16, True)
        u = ck.encrypt(a & 0xFFFF, "u16")
        assert ck.decrypt(u.to_int()) == a & 0xFFFF
