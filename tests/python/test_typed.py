"""EncTyped (the typed integers of TFHE-rs: FheUint8, FheInt16, ...) against a reference in
plain Python ints with Rust's semantics: wide sweeps in clear mode (the same circuits),
a sample with real keys, serialization, and bad input."""

import operator
import pickle

import pytest

import encint

TYPES = [(1, False), (1, True), (3, False), (3, True), (8, False), (8, True), (16, True)]


def lo_hi(bits, signed):
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def wrap(v, bits, signed):
    u = v % (1 << bits)
    return u - (1 << bits) if signed and u >= 1 << (bits - 1) else u


def tdiv(a, b, bits, signed):
    """Rust's `/` on the type (truncating; by 0 as TFHE-rs documents)."""
    if b == 0:
        if not signed:
            return (1 << bits) - 1
        return wrap(-1 if a >= 0 else 1, bits, signed)
    q = abs(a) // abs(b)
    return wrap(q if (a < 0) == (b < 0) else -q, bits, signed)


def trem(a, b, bits, signed):
    """Rust's `%` (the dividend's sign; `a % 0 == a`)."""
    if b == 0:
        return a
    r = abs(a) % abs(b)
    return wrap(-r if a < 0 else r, bits, signed)


def shift_amount(k, bits):
    """An encrypted amount is read as the unsigned pattern of its bits."""
    return k % (1 << bits)


def values(rng, bits, signed, n):
    lo, hi = lo_hi(bits, signed)
    edge = sorted({lo, hi, 0, min(1, hi), max(-1, lo)})
    return edge + [rng.randint(lo, hi) for _ in range(n)]


BINARY = {
    "add": (operator.add, lambda a, b, n, s: wrap(a + b, n, s)),
    "sub": (operator.sub, lambda a, b, n, s: wrap(a - b, n, s)),
    "mul": (operator.mul, lambda a, b, n, s: wrap(a * b, n, s)),
    "floordiv": (operator.floordiv, tdiv),
    "mod": (operator.mod, trem),
    "and": (operator.and_, lambda a, b, n, s: wrap(a & b, n, s)),
    "or": (operator.or_, lambda a, b, n, s: wrap(a | b, n, s)),
    "xor": (operator.xor, lambda a, b, n, s: wrap(a ^ b, n, s)),
    "lt": (operator.lt, lambda a, b, n, s: int(a < b)),
    "le": (operator.le, lambda a, b, n, s: int(a <= b)),
    "gt": (operator.gt, lambda a, b, n, s: int(a > b)),
    "ge": (operator.ge, lambda a, b, n, s: int(a >= b)),
    "eq": (operator.eq, lambda a, b, n, s: int(a == b)),
    "ne": (operator.ne, lambda a, b, n, s: int(a != b)),
    "min": (lambda x, y: encint.min(x, y), lambda a, b, n, s: min(a, b)),
    "max": (lambda x, y: encint.max(x, y), lambda a, b, n, s: max(a, b)),
    "shl": (
        operator.lshift,
        lambda a, b, n, s: wrap(a << shift_amount(b, n), n, s) if shift_amount(b, n) < n else 0,
    ),
    "shr": (
        operator.rshift,
        lambda a, b, n, s: a >> min(shift_amount(b, n), n),
    ),
}


@pytest.mark.parametrize("bits,signed", TYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("form", ["canonical", "radix4"])
def test_typed_binary_clear(clear, rng, bits, signed, name, form):
    """Operands of either form (radix-4: two bits per digit, alone and beside canonical
    ones) and Python ints, against the reference."""
    op, ref = BINARY[name]
    radix4 = form == "radix4"
    vs = values(rng, bits, signed, 3 if radix4 else 4)
    pairs = [(a, b) for a in vs for b in vs]
    rng.shuffle(pairs)
    for a, b in pairs[: 6 if radix4 else 12]:
        x = clear.encrypt_typed(a, bits, signed, form=form)
        assert x.form == form
        ys = [clear.encrypt_typed(b, bits, signed, form=form)]
        if radix4:
            ys.append(clear.encrypt_typed(b, bits, signed))
        for y in ys:
            r = op(x, y)
            assert clear.decrypt(r) == ref(a, b, bits, signed), (name, bits, signed, a, b, y.form)
        # A Python int on either side (not a zero divisor, not a negative shift: those
        # raise, as for Python ints).
        if not (name in ("floordiv", "mod") and b == 0) and not (name.startswith("sh") and b < 0):
            assert clear.decrypt(op(x, b)) == ref(a, b, bits, signed), (name, form, a, b)
        if name in ("add", "sub", "mul", "and", "or", "xor", "floordiv", "mod", "lt", "eq"):
            y = ys[0]
            assert clear.decrypt(op(a, y)) == ref(a, b, bits, signed), (name, form, a, b)


@pytest.mark.parametrize("bits,signed", TYPES)
@pytest.mark.parametrize("form", ["canonical", "radix4"])
def test_typed_unary_clear(clear, rng, bits, signed, form):
    for a in values(rng, bits, signed, 5):
        x = clear.encrypt_typed(a, bits, signed, form=form)
        assert clear.decrypt(-x) == wrap(-a, bits, signed)
        assert clear.decrypt(~x) == wrap(~a, bits, signed)
        assert clear.decrypt(x.square()) == wrap(a * a, bits, signed)
        k = lo_hi(bits, signed)[1]  # the largest scalar of the type
        assert clear.decrypt(x * k + k) == wrap(a * k + k, bits, signed)
        for k in (0, 1, bits - 1, bits, bits + 3):
            assert clear.decrypt(x << k) == (wrap(a << k, bits, signed) if k < bits else 0)
            assert clear.decrypt(x >> k) == a >> min(k, bits)
            u = a % (1 << bits)
            rl = ((u << (k % bits)) | (u >> (bits - k % bits))) % (1 << bits)
            rr = ((u >> (k % bits)) | (u << (bits - k % bits))) % (1 << bits)
            assert clear.decrypt(x.rotate_left(k)) == wrap(rl, bits, signed)
            assert clear.decrypt(x.rotate_right(k)) == wrap(rr, bits, signed)
        for to_bits, to_signed in [(1, False), (bits, not signed), (bits + 5, True), (bits + 5, False)]:
            assert clear.decrypt(x.cast(to_bits, to_signed)) == wrap(a, to_bits, to_signed)
        # Lazy operands (wrapping results) feed every operation correctly.
        y = x + x
        assert y.bits == bits and y.signed == signed
        assert clear.decrypt(y >> 1) == wrap(2 * a, bits, signed) >> 1


def test_typed_select_and_wide(clear, rng):
    for _ in range(6):
        a, b = rng.randint(-128, 127), rng.randint(-128, 127)
        x, y = clear.encrypt_typed(a, 8, True), clear.encrypt_typed(b, 8, True)
        assert clear.decrypt(encint.select(x < y, x, y)) == min(a, b)
        assert clear.decrypt(encint.select(x >= y, 5, y)) == (5 if a >= b else b)
        # Any value as the condition: odd selects the first operand.
        assert clear.decrypt(encint.select(x, x, y)) == (a if a % 2 else b)
    big = (1 << 128) - 5
    x = clear.encrypt_typed(big, 128)
    assert clear.decrypt(x + 9) == 4
    assert clear.decrypt(x ^ big) == 0
    assert clear.decrypt(x.cast(64)) == big % (1 << 64)
    w = clear.encrypt_typed(big % (1 << 64), 64)
    assert clear.decrypt(w // 3) == (big % (1 << 64)) // 3
    assert clear.decrypt(w % 1000) == (big % (1 << 64)) % 1000
    y = clear.encrypt_typed(-(1 << 63), 64, True)
    assert clear.decrypt(y // -1) == -(1 << 63)  # MIN / -1 == MIN
    assert clear.decrypt(y * y) == 0
    assert clear.decrypt(y.cast(128, True)) == -(1 << 63)
    assert clear.decrypt(y.cast(64)) == 1 << 63


def test_typed_properties_pickle_and_errors(clear):
    x = clear.encrypt_typed(-5, 8, signed=True)
    assert (x.bits, x.signed, x.dtype, x.form, x.is_clear) == (8, True, "i8", "canonical", True)
    y = -clear.encrypt_typed(100, 8, signed=True)  # free on digits: the planner's choice
    assert y.form == "lazy" and clear.decrypt(y) == -100
    assert (x < 0).dtype == "u1"
    for v in (x, y):
        assert clear.decrypt(pickle.loads(pickle.dumps(v))) == clear.decrypt(v)
    u = clear.encrypt_typed(250, 8)
    with pytest.raises(encint.InvalidInputError):
        x + u  # different types
    with pytest.raises(encint.InvalidInputError):
        u + 256  # not a u8
    with pytest.raises(encint.InvalidInputError):
        u * -1
    with pytest.raises(encint.InvalidInputError):
        clear.encrypt_typed(256, 8)
    with pytest.raises(encint.InvalidInputError):
        clear.encrypt_typed(-1, 8)
    with pytest.raises(encint.LimitError):
        clear.encrypt_typed(0, 129)
    with pytest.raises(encint.LimitError):
        clear.encrypt_typed(0, 0)
    with pytest.raises(encint.LimitError):
        u.cast(0)
    with pytest.raises(ZeroDivisionError):
        u // 0
    with pytest.raises(ZeroDivisionError):
        u % 0
    with pytest.raises(ValueError):
        u << -1
    with pytest.raises(TypeError):
        u + "1"
    with pytest.raises(TypeError):
        bool(u < 3)
    with pytest.raises(TypeError):
        u + clear.encrypt(1, 8)
    with pytest.raises(encint.InvalidInputError):
        clear.encrypt_typed(1, 8).to_bytes()


def test_typed_real_keys(keys):
    ck, sk = keys
    # 4-bit types keep the sample cheap (the sweeps above run the same circuits).
    a, b = ck.encrypt_typed(13, 4), ck.encrypt_typed(3, 4)
    assert ck.decrypt(a + b) == (13 + 3) % 16
    assert ck.decrypt(a * b) == (13 * 3) % 16
    assert ck.decrypt(a // b) == 13 // 3
    assert ck.decrypt(a % 3) == 13 % 3
    assert ck.decrypt(a < b) == 0
    s = ck.encrypt_typed(-7, 4, signed=True)
    assert ck.decrypt(s // 2) == -3  # truncating, like Rust
    assert ck.decrypt(s >> 1) == -4
    assert ck.decrypt((s + s).cast(8, True)) == 2  # -14 wraps to 2 in i4
    # Checked envelope: type and form kept, wrong role and truncation refused.
    lazy = a * 3
    data = lazy.to_bytes()
    back = encint.EncTyped.from_bytes(data)
    assert (back.dtype, back.form) == ("u4", lazy.form) and ck.decrypt(back) == 39 % 16
    assert ck.decrypt(pickle.loads(pickle.dumps(s))) == -7
    with pytest.raises(encint.FormatError):
        encint.EncTyped.from_bytes(data[:-3])
    with pytest.raises(encint.KeyRoleError):
        encint.EncTyped.from_bytes(ck.to_bytes())
    with pytest.raises(encint.FormatError):
        encint.EncTyped.from_bytes(ck.encrypt(5, 8).to_bytes())  # an EncInt envelope
    with pytest.raises(encint.InvalidInputError):
        a + encint.ClientKey.clear().encrypt_typed(1, 4)
    # Radix-4 blocks: arithmetic on the blocks, the form kept through the envelope.
    r, q = ck.encrypt_typed(13, 5, form="radix4"), ck.encrypt_typed(22, 5, form="radix4")
    assert ck.decrypt(r + q) == 35 % 32 and (r + q).form == "radix4"
    assert ck.decrypt(r * q) == (13 * 22) % 32
    assert ck.decrypt(r < q) == 1 and ck.decrypt(encint.max(r, q)) == 22
    back = encint.EncTyped.from_bytes((r ^ q).to_bytes())
    assert back.form == "radix4" and ck.decrypt(back) == 13 ^ 22
    # Shifts by a constant and by a ciphertext stay on the blocks; scalar products too
    # where the planner picks the blocks.
    assert ck.decrypt(r * 7) == 13 * 7 % 32
    for z, want in ((r << 3, (13 << 3) % 32), (r >> 2, 13 >> 2),
                    (q.rotate_left(3), ((22 << 3) | (22 >> 2)) % 32), (r << ck.encrypt_typed(2, 5, form="radix4"), 13 * 4 % 32)):
        assert z.form == "radix4" and ck.decrypt(z) == want
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt_typed(1, 4, form="lazy")
