"""The typed family (FheUint8, FheInt8, FheUint16, FheBool, any width, FheArray, compile)
against Python ints and NumPy with real keys: NumPy's integer semantics (wrapping,
flooring `//`, `%` with the divisor's sign, 0 for a zero divisor), serialization and bad
input. Real keys cost 0.1 to a few seconds per operation, so each test picks a few
values; arrays check many values in one circuit."""

import pickle

import pytest

import encint

np = pytest.importorskip("numpy")

SCALAR_TYPES = {
    "u8": (encint.FheUint8, np.uint8, 200, 77),
    "i8": (encint.FheInt8, np.int8, -100, 27),
    "u16": (encint.FheUint16, np.uint16, 60000, 1234),
}


def ref(dtype, a, b, op):
    """`op` on NumPy scalars of `dtype` (wrapping, as NumPy's integer types do)."""
    with np.errstate(all="ignore"):
        return int(op(dtype(a), dtype(b)))


def rotl(v, k, bits):
    u = v % (1 << bits)
    k %= bits
    r = ((u << k) | (u >> (bits - k))) % (1 << bits)
    return r - (1 << bits) if v < 0 and r >= 1 << (bits - 1) else r


@pytest.mark.parametrize("name", sorted(SCALAR_TYPES))
def test_scalar_operators_match_numpy(keys, name):
    ck, _ = keys
    cls, dtype, a, b = SCALAR_TYPES[name]
    x, y = cls.encrypt(a, ck), ck.encrypt(b, name)
    assert type(x) is cls and type(y) is cls and x.type == name
    bits = np.iinfo(dtype).bits
    cases = {
        "x + y": (lambda: x + y, ref(dtype, a, b, lambda p, q: p + q)),
        "x - y": (lambda: x - y, ref(dtype, a, b, lambda p, q: p - q)),
        "x * y": (lambda: x * y, ref(dtype, a, b, lambda p, q: p * q)),
        "x & y": (lambda: x & y, a & b),
        "x | y": (lambda: x | y, a | b),
        "x ^ 5": (lambda: x ^ 5, a ^ 5),
        "~x": (lambda: ~x, ref(dtype, a, 0, lambda p, q: ~p)),
        "-x": (lambda: -x, ref(dtype, a, 0, lambda p, q: -p)),
        "x << 3": (lambda: x << 3, ref(dtype, a, 3, lambda p, q: p << q)),
        "x >> 3": (lambda: x >> 3, a >> 3),
        "7 - x": (lambda: 7 - x, ref(dtype, 7, a, lambda p, q: p - q)),
        "3 * x": (lambda: 3 * x, ref(dtype, 3, a, lambda p, q: p * q)),
        "x.min(y)": (lambda: x.min(y), min(a, b)),
        "encint.max(x, y)": (lambda: encint.max(x, y), max(a, b)),
        "x.rotate_left(3)": (lambda: x.rotate_left(3), rotl(a, 3, bits)),
        "abs(x)": (lambda: abs(x), ref(dtype, a, 0, lambda p, q: abs(p))),
        "x.square()": (lambda: x.square(), ref(dtype, a, a, lambda p, q: p * q)),
        "x.cast('u16')": (lambda: x.cast("u16"), a % (1 << 16)),
    }
    if bits > 8:
        # 16-bit operations cost seconds each: the 8-bit types cover the rest.
        keep = {"x + y", "x - y", "7 - x", "x ^ 5", "x >> 3", "x.min(y)", "x.cast('u16')"}
        cases = {k: v for k, v in cases.items() if k in keep}
    for what, (op, want) in cases.items():
        got = op().decrypt(ck)
        assert got == want, f"{name}: {what} = {got}, NumPy: {want}"
    comparisons = [
        ("x < y", lambda: x < y, a < b),
        ("x >= y", lambda: x >= y, a >= b),
        ("x == x", lambda: x == x, True),
        ("x != y", lambda: x != y, a != b),
        ("5 > x", lambda: 5 > x, 5 > a),
    ]
    for what, op, want in comparisons[: 2 if bits > 8 else None]:
        enc = op()
        assert isinstance(enc, encint.FheBool), what
        assert enc.decrypt(ck) is want, what


def test_bool_logic_select_and_cast(keys):
    ck, _ = keys
    t, f = encint.FheBool.encrypt(True, ck), ck.encrypt(False, "bool")
    for what, enc, want in [
        ("t & f", t & f, False),
        ("t | f", t | f, True),
        ("t ^ t", t ^ t, False),
        ("~f", ~f, True),
        ("t == f", t == f, False),
    ]:
        assert isinstance(enc, encint.FheBool), what
        assert enc.decrypt(ck) is want, what
    a, b = encint.FheUint8.encrypt(9, ck), encint.FheUint8.encrypt(200, ck)
    assert t.select(a, b).decrypt(ck) == 9
    assert f.if_then_else(a, 17).decrypt(ck) == 17
    assert encint.select(t, 3, b).decrypt(ck) == 3
    assert encint.where(a < b, b, a).decrypt(ck) == 200
    assert t.cast(encint.FheUint8).decrypt(ck) == 1
    assert a.cast("bool").decrypt(ck) is True
    with pytest.raises(TypeError):
        bool(a < b)


def overflowing(a, b, bits, signed, op):
    """Rust's `overflowing_*` on Python ints: the wrapped result and whether the exact
    one is outside the type."""
    exact = op(a, b)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    wrapped = (exact - lo) % (1 << bits) + lo
    return wrapped, not lo <= exact <= hi


@pytest.mark.parametrize(
    "cls,bits,signed,pairs",
    [
        (encint.FheUint8, 8, False, [(200, 100), (3, 7)]),
        (encint.FheInt8, 8, True, [(100, 100), (-128, 1), (-5, 7)]),
    ],
)
def test_overflowing_arithmetic_and_parity_match_ints(keys, cls, bits, signed, pairs):
    ck, _ = keys
    for a, b in pairs:
        x, y = cls.encrypt(a, ck), cls.encrypt(b, ck)
        for name, op in [("add", lambda p, q: p + q), ("sub", lambda p, q: p - q)]:
            v, flag = getattr(x, "overflowing_" + name)(y)
            assert isinstance(flag, encint.FheBool)
            got = (v.decrypt(ck), flag.decrypt(ck))
            assert got == overflowing(a, b, bits, signed, op), (name, a, b)
        v, flag = x.overflowing_mul(y)
        assert (v.decrypt(ck), flag.decrypt(ck)) == overflowing(a, b, bits, signed, lambda p, q: p * q)
        if b != 0:
            q, r = divmod(x, y)  # NumPy's (and Python's) flooring rules
            assert (q.decrypt(ck), r.decrypt(ck)) == divmod(a, b), (a, b)
        v, flag = x.overflowing_neg()
        assert (v.decrypt(ck), flag.decrypt(ck)) == overflowing(0, a, bits, signed, lambda p, q: p - q)
        assert (x.is_even().decrypt(ck), x.is_odd().decrypt(ck)) == (a % 2 == 0, a % 2 == 1)
        assert y.is_odd().if_then_zero(x).decrypt(ck) == (a if b % 2 else 0)
    with pytest.raises(TypeError):
        x.overflowing_add(3)


def test_floor_division_and_modulo_follow_numpy(keys):
    ck, _ = keys
    # Both mixed-sign cases, MIN // -1 and a zero divisor, in one circuit per operator on
    # a 3-bit signed type (the same circuits as wider types, fewer bootstraps).
    i3 = encint.FheInt(3)
    n = [-3, 3, -4, 2]
    d = [2, -2, -1, 0]
    x, y = ck.encrypt(n, i3), ck.encrypt(d, "i3")
    with np.errstate(all="ignore"):
        q = np.array(n, np.int8) // np.array(d, np.int8)
        r = np.array(n, np.int8) % np.array(d, np.int8)
    wrap = lambda v: [((int(t) + 4) % 8) - 4 for t in v]  # noqa: E731
    assert (x // y).decrypt(ck).tolist() == wrap(q)
    assert (x % y).decrypt(ck).tolist() == wrap(r)
    # A clear divisor of either sign, on one value of a named type.
    v = encint.FheInt8.encrypt(-100, ck)
    assert (v // -7).decrypt(ck) == -100 // -7
    assert (v % 7).decrypt(ck) == -100 % 7
    with pytest.raises(ZeroDivisionError):
        v // 0


def test_other_widths_and_u128(keys):
    ck, _ = keys
    u12 = encint.FheUint(12)
    assert u12 is encint.FheUint(12) and u12.__name__ == "FheUint12"
    x = u12.encrypt(4000, ck)
    assert type(pickle.loads(pickle.dumps(x))) is u12
    assert (x + 100).decrypt(ck) == (4000 + 100) % 4096
    big = encint.FheUint128.encrypt(2**127 - 1, ck)
    assert (big + big).decrypt(ck) == 2 * (2**127 - 1)
    with pytest.raises(encint.InvalidInputError):
        encint.FheUint128.encrypt(2**127, ck)


def wrap(v, bits, signed):
    """`v` modulo `2**bits` as a value of the type (plain ints)."""
    u = v % (1 << bits)
    return u - (1 << bits) if signed and u >= 1 << (bits - 1) else u


def test_u1_is_refused_and_i1_is_a_one_bit_integer(keys):
    ck, _ = keys
    x = ck.encrypt(50, "u8")
    # The one-bit unsigned type is the boolean (a cast to it gives x != 0): every way to
    # name it as an integer is refused with a message that points to bool.
    for refused in (
        lambda: x.cast("u1"),
        lambda: x.cast("uint1"),
        lambda: encint.FheUint(1),
        lambda: ck.encrypt(1, "u1"),
        lambda: ck.encrypt(np.array([0, 1]), "u1"),
        lambda: encint.compile(lambda a: a + 1, "u1"),
    ):
        with pytest.raises(encint.InvalidInputError, match="`bool`"):
            refused()
    # Other widths still truncate; bool is x != 0.
    assert x.cast("u2").decrypt(ck) == 50 % 4
    assert x.cast("bool").decrypt(ck) is True
    # i1 is the one-bit signed integer: -1 and 0, a cast keeps the low bit.
    i1 = encint.FheInt(1)
    assert i1.__name__ == "FheInt1" and i1.encrypt(-1, ck).type == "i1"
    clear = [0, 1, 50, 51, 255]
    cast = ck.encrypt(np.array(clear, np.uint8), "u8").cast(i1).decrypt(ck)
    assert cast.tolist() == [wrap(v, 1, True) for v in clear]
    a, b = i1.encrypt(-1, ck), ck.encrypt(0, "i1")
    for what, got, want in [
        ("a + a", a + a, wrap(-2, 1, True)),
        ("a * a", a * a, wrap(1, 1, True)),
        ("a - b", a - b, -1),
        ("-a", -a, wrap(1, 1, True)),
        ("a < b", a < b, True),
    ]:
        assert got.decrypt(ck) == want, what
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt(1, "i1")


def test_arrays_match_numpy(keys):
    ck, _ = keys
    a_np = np.array([[200, 7], [255, 16]], dtype=np.uint8)
    b_np = np.array([[100, 250], [2, 16]], dtype=np.uint8)
    a, b = ck.encrypt(a_np, "u8"), encint.FheArray.encrypt(b_np, encint.FheUint8, ck)
    assert a.shape == (2, 2) and a.type == "u8"
    out = a.decrypt(ck)
    assert out.dtype == np.uint8 and (out == a_np).all()
    with np.errstate(all="ignore"):
        assert ((a + b).decrypt(ck) == a_np + b_np).all()
        assert ((10 - a).decrypt(ck) == np.uint8(10) - a_np).all()
    lt = a < b
    assert lt.type == "bool" and (lt.decrypt(ck) == (a_np < b_np)).all()
    assert (encint.where(lt, a, 0).decrypt(ck) == np.where(a_np < b_np, a_np, 0)).all()
    assert a.sum().decrypt(ck) == int(a_np.sum()) % 256
    assert a.max().decrypt(ck) == int(a_np.max())
    assert (encint.min(a, 100).decrypt(ck) == np.minimum(a_np, 100)).all()
    with np.errstate(all="ignore"):
        assert ((a @ b).decrypt(ck) == a_np @ b_np).all()
    v = ck.encrypt(np.array([-3, 4], dtype=np.int8), "i8")
    w = np.array([7, -2], dtype=np.int8)
    assert encint.dot(v, ck.encrypt(w, "i8")).decrypt(ck) == int(np.dot([-3, 4], w))
    assert ck.decrypt(v[1]) == 4
    assert ck.encrypt([True, False], np.bool_).decrypt(ck).tolist() == [True, False]


def test_compile_cost_before_keys_then_run(keys):
    ck, _ = keys

    @encint.compile("u8", ("u8", (3,)))
    def f(s, v):
        return (v * s).sum() + 1, v.max()

    cost = f.cost()
    assert cost["bootstraps"] > 0 and cost["depth"] > 0
    s = encint.FheUint8.encrypt(3, ck)
    v = ck.encrypt(np.array([10, 50, 90], dtype=np.uint8), "u8")
    total, top = f(s, v)
    assert total.decrypt(ck) == (3 * (10 + 50 + 90) + 1) % 256
    assert top.decrypt(ck) == 90
    a, b = encint.trace(lambda p, q: p * p - q, s, encint.FheUint8.encrypt(20, ck)), None
    assert a.decrypt(ck) == (9 - 20) % 256 and b is None


def test_serialization(keys, tmp_path):
    ck, _ = keys
    x = encint.FheInt16.encrypt(-12345, ck)
    data = x.to_bytes()
    y = encint.FheInt16.from_bytes(data)
    assert type(y) is encint.FheInt16 and y.decrypt(ck) == -12345
    assert type(encint.FheValue.from_bytes(data)) is encint.FheInt16
    assert pickle.loads(pickle.dumps(x)).decrypt(ck) == -12345
    assert ck.decrypt(x) == -12345
    # One reader for every ciphertext: the value's class from the bytes alone.
    z = encint.from_bytes(data)
    assert type(z) is encint.FheInt16 and z.decrypt(ck) == -12345
    e = encint.from_bytes(ck.encrypt(-77).to_bytes())
    assert type(e) is encint.EncInt and ck.decrypt(e) == -77
    s = encint.from_bytes(ck.encrypt_seeded(40000, "u16"))
    assert type(s) is encint.FheUint16 and s.decrypt(ck) == 40000
    e = encint.from_bytes(ck.encrypt_seeded(-1234, 12))
    assert type(e) is encint.EncInt and ck.decrypt(e) == -1234
    with pytest.raises(encint.FormatError):
        encint.from_bytes(b"not an envelope" * 4)


def test_errors(keys):
    ck, sk = keys
    with pytest.raises(encint.InvalidInputError):
        encint.FheUint8.encrypt(256, ck)
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt(-129, "i8")
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt(np.array([1, 300]), "u8")
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt(3, "x8")
    x, w = encint.FheUint8.encrypt(1, ck), encint.FheUint16.encrypt(1, ck)
    with pytest.raises(encint.InvalidInputError):
        x + w
    with pytest.raises(encint.InvalidInputError):
        x + 256
    with pytest.raises(encint.InvalidInputError):
        encint.FheUint16.from_bytes(x.to_bytes())
    with pytest.raises(encint.InvalidInputError):
        encint.FheUint8.from_bytes(ck.encrypt(5).to_bytes())
    with pytest.raises(encint.FormatError):
        encint.FheUint8.from_bytes(b"not an envelope" * 4)
    with pytest.raises(TypeError):
        x + 1.5
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt([1, 2], "u8") + ck.encrypt([1, 2, 3], "u8")
    with pytest.raises(encint.InvalidInputError):
        encint.FheUint8.encrypt(1, encint.ClientKey.clear())
    other = encint.ClientKey.generate()
    with pytest.raises(encint.KeyMismatchError):
        other.decrypt(x)
    with pytest.raises(encint.KeyMismatchError):
        x + encint.FheUint8.encrypt(1, other)
    encint.set_server_key(None)
    try:
        with pytest.raises(encint.NoServerKeyError):
            x + x
    finally:
        encint.set_server_key(sk)
    assert (x + x).decrypt(ck) == 2


def test_radix4_form_gives_the_same_results_in_half_the_digits(keys):
    ck, _ = keys
    a, b = -100, 27
    x = ck.encrypt(a, "i8")  # radix-4 blocks: the default form
    y = ck.encrypt(b, "i8", form="canonical")
    assert type(x) is encint.FheInt8 and type(y) is encint.FheInt8
    # Half the digit ciphertexts of the canonical form.
    assert len(x.to_bytes()) * 3 < len(y.to_bytes()) * 2
    assert len(ck.encrypt(a, "i8", form="radix4").to_bytes()) == len(x.to_bytes())
    for op in (lambda p, q: p + q, lambda p, q: p ^ q, lambda p, q: p * q):
        assert op(x, y).decrypt(ck) == ref(np.int8, a, b, op)
    assert (x < y).decrypt(ck) is True
    assert pickle.loads(pickle.dumps(x)).decrypt(ck) == a
    arr = ck.encrypt(np.array([1, 200, 255], np.uint8), "u8", form="radix4")
    assert ((arr + 100).decrypt(ck) == np.array([101, 44, 99], np.uint8)).all()
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt(5, "u8", form="radix8")
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt(5, 16, form="radix4")


def bit_counts(v, bits):
    """Rust's counts of the two's-complement pattern of `v` at `bits` bits, on ints."""
    p = v % (1 << bits)
    rev = int(format(p, f"0{bits}b")[::-1], 2)
    inv = (1 << bits) - 1 - p
    tz = lambda q: bits if q == 0 else (q & -q).bit_length() - 1  # noqa: E731
    return {
        "count_ones": bin(p).count("1"),
        "count_zeros": bits - bin(p).count("1"),
        "leading_zeros": bits - p.bit_length(),
        "leading_ones": bits - inv.bit_length(),
        "trailing_zeros": tz(p),
        "trailing_ones": tz(inv),
        "ilog2": max(p.bit_length() - 1, 0),
        "reverse_bits": rev,
    }


@pytest.mark.parametrize(
    "cls,bits,signed,v", [(encint.FheUint(10), 10, False, 0b0000110100), (encint.FheInt8, 8, True, -40)]
)
def test_bit_counts_match_ints(keys, cls, bits, signed, v):
    ck, _ = keys
    x = cls.encrypt(v, ck)
    for name, want in bit_counts(v, bits).items():
        got = getattr(x, name)()
        if name == "reverse_bits":
            # A value of the type: the reversed pattern read back signed or unsigned.
            assert type(got) is type(x)
            want = want - (1 << bits) if signed and want >= 1 << (bits - 1) else want
        else:
            assert isinstance(got, encint.FheUint32), name
        assert got.decrypt(ck) == want, name
    log, positive = x.checked_ilog2()
    assert (log.decrypt(ck), positive.decrypt(ck)) == (bit_counts(v, bits)["ilog2"], v > 0)
    # NumPy's bitwise_count counts the ones of |v|.
    want = int(np.bitwise_count(np.int64(v))) if hasattr(np, "bitwise_count") else bin(abs(v)).count("1")
    assert encint.bitwise_count(x).decrypt(ck) == want


def test_bit_counts_elementwise_on_arrays(keys):
    ck, _ = keys
    values = np.array([0, 1, 0x80, 0x7F, 0x38], dtype=np.uint8)
    a = ck.encrypt(values, "u8")
    lz = a.leading_zeros()
    assert lz.dtype == "uint32"
    assert lz.decrypt(ck).tolist() == [bit_counts(int(v), 8)["leading_zeros"] for v in values]
    assert a.count_ones().decrypt(ck).tolist() == [bin(int(v)).count("1") for v in values]


def test_oblivious_random_values(keys):
    ck, _ = keys
    a = encint.FheUint16.generate_oblivious_pseudo_random(11)
    b = encint.FheUint16.generate_oblivious_pseudo_random(11)
    c = encint.FheUint16.generate_oblivious_pseudo_random(12)
    assert isinstance(a, encint.FheUint16)
    assert a.decrypt(ck) == b.decrypt(ck)  # one seed, one value
    assert a.decrypt(ck) != c.decrypt(ck)  # equal with probability 2**-16
    rolls = [encint.FheUint(6).generate_oblivious_pseudo_random(s, bits=2).decrypt(ck) for s in range(40)]
    assert all(0 <= r < 4 for r in rolls)
    assert len(set(rolls)) > 1  # all equal: probability 4**-39
    with pytest.raises(encint.Error):
        encint.FheUint8.generate_oblivious_pseudo_random(1, bits=9)


def test_match_value_against_a_dict(keys):
    ck, _ = keys
    table = {0: 1000, 7: 7, 255: 65535, 128: 0}
    for v in [0, 7, 255, 128, 1, 200]:
        x = encint.FheUint8.encrypt(v, ck)
        y, found = x.match_value(table, "u16")
        assert isinstance(y, encint.FheUint16) and isinstance(found, encint.FheBool)
        assert (y.decrypt(ck), found.decrypt(ck)) == (table.get(v, 0), v in table)
    # Pairs, a signed type, a default; every value of an i4.
    i4 = encint.FheInt(4)
    pairs = [(-8, 3), (-1, -4), (5, 0)]
    for v in range(-8, 8):
        y = i4.encrypt(v, ck).match_value_or(pairs, -2)
        assert y.decrypt(ck) == dict(pairs).get(v, -2), v
    # Inside a compiled function.
    f = encint.compile(lambda a: a.match_value_or({3: 30, 4: 40}, 1), "u8")
    assert f(encint.FheUint8.encrypt(4, ck)).decrypt(ck) == 40
    # Bad tables: typed errors naming the entry.
    x = encint.FheUint8.encrypt(1, ck)
    for bad, default in [({256: 1}, 0), ({1: 300}, 0), ({1: 1}, -1), ([(1, 2), (1, 3)], 0)]:
        with pytest.raises(encint.InvalidInputError):
            x.match_value_or(bad, default)
    with pytest.raises(encint.InvalidInputError):
        x.match_value([1, 2, 3])
