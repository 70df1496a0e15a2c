"""Every operator against Python ints on random values, in clear mode (the circuits the
encrypted mode runs, evaluated by the clear executor): wide sweeps, cheap. `EncInt`
through the clear-mode key, the typed family through `encint.compile(...).run_clear`."""

import operator

import pytest

import encint

N = 40  # random cases per operator


def rand_int(rng, bits):
    return rng.randrange(-(2**bits) + 1, 2**bits)


BINARY = [
    ("add", operator.add),
    ("sub", operator.sub),
    ("mul", operator.mul),
    ("floordiv", operator.floordiv),
    ("mod", operator.mod),
    ("and", operator.and_),
    ("or", operator.or_),
    ("xor", operator.xor),
]
COMPARE = [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]


@pytest.mark.parametrize("name,op", BINARY)
def test_encint_binary(clear, rng, name, op):
    for _ in range(N):
        bits_a, bits_b = rng.choice([4, 12, 40, 130]), rng.choice([4, 12, 40, 130])
        a, b = rand_int(rng, bits_a), rand_int(rng, bits_b)
        if name in ("floordiv", "mod") and b == 0:
            b = 1
        ea, eb = clear.encrypt(a, bits_a), clear.encrypt(b, bits_b)
        assert clear.decrypt(op(ea, eb)) == op(a, b), (name, a, b)
        # A Python int on either side.
        assert clear.decrypt(op(ea, b)) == op(a, b), (name, a, b)
        assert clear.decrypt(op(a, eb)) == op(a, b), (name, a, b)


@pytest.mark.parametrize("op", COMPARE)
def test_encint_compare(clear, rng, op):
    for _ in range(N):
        a, b = rand_int(rng, 10), rand_int(rng, 10)
        if rng.random() < 0.3:
            b = a
        r = op(clear.encrypt(a, 10), clear.encrypt(b, 10))
        assert isinstance(r, encint.EncInt)
        assert clear.decrypt(r) == int(op(a, b))


def test_encint_unary_shift_select(clear, rng):
    for _ in range(N):
        a, b = rand_int(rng, 20), rand_int(rng, 20)
        k = rng.randrange(0, 70)
        ea, eb = clear.encrypt(a, 20), clear.encrypt(b, 20)
        assert clear.decrypt(-ea) == -a
        assert clear.decrypt(abs(ea)) == abs(a)
        assert clear.decrypt(~ea) == ~a
        assert clear.decrypt(ea << k) == a << k
        assert clear.decrypt(ea >> k) == a >> k
        assert clear.decrypt(ea.square()) == a * a
        assert clear.decrypt(ea.sign()) == (a > 0) - (a < 0)
        assert clear.decrypt(encint.min(ea, eb)) == min(a, b)
        assert clear.decrypt(encint.max(ea, eb)) == max(a, b)
        assert clear.decrypt(encint.select(ea < eb, ea, eb)) == (a if a < b else b)
        assert clear.decrypt(encint.select(ea < eb, 7, eb)) == (7 if a < b else b)


def test_encint_big_values(clear):
    a = 3**200
    b = -(7**150)
    ea, eb = clear.encrypt(a, 430), clear.encrypt(b, 430)
    assert clear.decrypt(ea * eb + ea) == a * b + a
    assert clear.decrypt(ea // eb) == a // b
    assert clear.decrypt(ea % eb) == a % b


def wrap(v, width, signed):
    v &= (1 << width) - 1
    if signed and v >= 1 << (width - 1):
        v -= 1 << width
    return v


def rand_bits(rng, width, signed):
    if signed:
        return rng.randrange(-(1 << (width - 1)), 1 << (width - 1))
    return rng.randrange(0, 1 << width)


def type_name(width, signed):
    return f"{'i' if signed else 'u'}{width}"


@pytest.mark.parametrize("width,signed", [(8, False), (8, True), (16, False), (16, True)])
def test_typed_binary(rng, width, signed):
    """The typed family's operators (one circuit for all of them, on plain values through
    `run_clear`), wrapping like machine integers, `//` and `%` with Python's floor."""
    ty = type_name(width, signed)
    f = encint.compile(lambda x, y: tuple(op(x, y) for _, op in BINARY), ty, ty)
    for _ in range(N // 2):
        a, b = rand_bits(rng, width, signed), rand_bits(rng, width, signed)
        if b == 0:
            b = 1
        want = tuple(wrap(op(a, b), width, signed) for _, op in BINARY)
        assert f.run_clear(a, b) == want, (ty, a, b)
    g = encint.compile(lambda x: tuple(op(x, 3) for _, op in BINARY), ty)
    for a in (rand_bits(rng, width, signed) for _ in range(4)):
        assert g.run_clear(a) == tuple(wrap(op(a, 3), width, signed) for _, op in BINARY)


@pytest.mark.parametrize("width,signed", [(8, False), (8, True), (13, True)])
def test_typed_unary_compare_shift(rng, width, signed):
    ty = type_name(width, signed)
    f = encint.compile(
        lambda x, y, k: (-x, ~x, abs(x))
        + tuple(op(x, y) for op in COMPARE)
        + (x << k, x >> k, encint.min(x, y), encint.max(x, y), (x < y).select(x, y)),
        ty,
        ty,
        f"u{width}",
    )
    for _ in range(N):
        a, b = rand_bits(rng, width, signed), rand_bits(rng, width, signed)
        k = rng.randrange(0, width + 3)
        got = f.run_clear(a, b, k)
        want = (wrap(-a, width, signed), wrap(~a, width, signed), wrap(abs(a), width, signed))
        want += tuple(op(a, b) for op in COMPARE)
        # Shifts by the amount modulo the width.
        m = k % width
        want += (wrap(a << m, width, signed), a >> m, min(a, b), max(a, b), a if a < b else b)
        assert got == want, (ty, a, b, k)
        shifted = encint.compile(lambda x: (x << k, x >> k), ty)
        assert shifted.run_clear(a) == want[9:11]


def test_round_trips_and_pickle(clear, rng):
    import pickle

    for width in (1, 7, 64, 200):
        v = rand_int(rng, width - 1) if width > 1 else rng.choice([-1, 0, 1])
        e = clear.encrypt(v, width)
        assert e.width == width
        assert clear.decrypt(e) == v
        assert clear.decrypt(pickle.loads(pickle.dumps(e))) == v
