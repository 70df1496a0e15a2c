"""NumPy arrays as operands of the typed family: an ``FheArray`` with a clear array of its
shape (or one that broadcasts to it), and one encrypted value with a clear array, in both
orders, for every arithmetic, bitwise, shift and comparison operator, elementwise as one
circuit. The reference is NumPy's own result on the clear arrays (NumPy's semantics:
wrapping, flooring ``//``, ``%`` with the divisor's sign, 0 for a zero divisor). Real keys
cover the eager operators on a few elements; compiled functions run the same elementwise
compositions on the clear executor for wider sweeps and more dtypes."""

import operator

import pytest

import encint

np = pytest.importorskip("numpy")

ARITH = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
}
SHIFTS = {"<<": operator.lshift, ">>": operator.rshift}
COMPARE = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


def want(op, p, q):
    """`op` as NumPy computes it (wrapping, 0 for a zero divisor, no warnings)."""
    with np.errstate(all="ignore"):
        return np.asarray(op(p, q))


def same(got, expected, what):
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype}, NumPy {expected.dtype}"
    assert got.tolist() == expected.tolist(), f"{what}: {got.tolist()}, NumPy {expected.tolist()}"


def test_array_with_numpy_array_both_orders(keys):
    ck, _ = keys
    a = np.array([200, 7, 0, 255], np.uint8)
    w = np.array([3, 250, 9, 0], np.uint8)  # a zero divisor on either side
    x = ck.encrypt(a, "u8")
    ops = dict(ARITH, **COMPARE)
    for name, op in ops.items():
        r = op(x, w)
        assert isinstance(r, encint.FheArray), f"x {name} w gave {type(r).__name__}"
        same(r.decrypt(ck), want(op, a, w), f"x {name} w")
        # NumPy's operator defers to the FheArray's reflected one.
        r = op(w, x)
        assert isinstance(r, encint.FheArray), f"w {name} x gave {type(r).__name__}"
        same(r.decrypt(ck), want(op, w, a), f"w {name} x")
    # Shift amounts below the width (the library shifts by k mod N, NumPy does not).
    k = np.array([0, 1, 7, 3], np.uint8)
    for name, op in SHIFTS.items():
        same(op(x, k).decrypt(ck), want(op, a, k), f"x {name} k")
        same(op(w, ck.encrypt(k, "u8")).decrypt(ck), want(op, w, k), f"w {name} enc(k)")
    # A row broadcast to a matrix, and the methods that take operands.
    m = ck.encrypt(a.reshape(2, 2), "u8")
    row = np.array([1, 100], np.uint8)
    same((m + row).decrypt(ck), want(operator.add, a.reshape(2, 2), row), "m + row")
    same(m.minimum(row).decrypt(ck), np.minimum(a.reshape(2, 2), row), "minimum")
    same((a.reshape(2, 2) == m).decrypt(ck), np.ones((2, 2), bool), "a == m")


def test_value_with_numpy_array_both_orders(keys):
    ck, _ = keys
    v, w = -100, np.array([[3, -7], [0, 127]], np.int8)
    x = ck.encrypt(v, "i8")
    for name, op in {"+": operator.add, "-": operator.sub, "//": operator.floordiv,
                     "%": operator.mod, "^": operator.xor, "<": operator.lt}.items():
        r = op(x, w)
        assert isinstance(r, encint.FheArray) and r.shape == (2, 2), name
        same(r.decrypt(ck), want(op, np.int8(v), w), f"x {name} w")
        r = op(w, x)
        assert isinstance(r, encint.FheArray) and r.shape == (2, 2), name
        same(r.decrypt(ck), want(op, w, np.int8(v)), f"w {name} x")
    # NumPy integer scalars stay scalars.
    assert isinstance(np.int8(3) + x, encint.FheInt8)


@pytest.mark.parametrize("dtype,ty", [
    (np.uint8, "u8"), (np.int8, "i8"), (np.uint16, "u16"), (np.int16, "i16"), (np.uint32, "u32"),
])
def test_compiled_elementwise_sweep_against_numpy(dtype, ty):
    # The same elementwise compositions inside compiled functions, on the clear executor:
    # every operator, both orders, values across the type including its extremes.
    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    n = 24
    a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    w = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    a[:4] = [info.min, info.max, 0, info.min]
    w[:4] = [0, 0, info.max, -1 if info.min < 0 else 1]
    for name, op in dict(ARITH, **COMPARE).items():
        left = encint.compile(lambda x, op=op: op(x, w), (ty, (n,)))
        same(np.asarray(left.run_clear(a)), want(op, a, w), f"{ty}: x {name} w")
        right = encint.compile(lambda x, op=op: op(w, x), (ty, (n,)))
        same(np.asarray(right.run_clear(a)), want(op, w, a), f"{ty}: w {name} x")
    k = rng.integers(0, info.bits, n, dtype=dtype)
    for name, op in SHIFTS.items():
        f = encint.compile(lambda x, op=op: op(x, k), (ty, (n,)))
        same(np.asarray(f.run_clear(a)), want(op, a, k), f"{ty}: x {name} k")


def test_booleans_with_numpy_booleans():
    t = np.array([True, False, True, False])
    u = np.array([True, True, False, False])
    for name, op in {"&": operator.and_, "|": operator.or_, "^": operator.xor,
                     "==": operator.eq, "!=": operator.ne}.items():
        f = encint.compile(lambda b, op=op: op(u, b), ("bool", (4,)))
        same(np.asarray(f.run_clear(t)), want(op, u, t), f"u {name} b")


def test_what_is_not_elementwise_is_refused(keys):
    ck, _ = keys
    x = ck.encrypt(np.array([1, 2, 3]), "u8")
    with pytest.raises(encint.InvalidInputError, match="broadcast"):
        x + np.array([1, 2], np.uint8)
    with pytest.raises(encint.InvalidInputError):
        x + np.array([1, 2, 300])  # not values of u8, as for a clear int
    with pytest.raises(TypeError):
        x + np.array([1.5, 2.0, 3.0])
    with pytest.raises(TypeError, match="matrix product"):
        x @ np.eye(3, dtype=np.uint8)
    with pytest.raises(TypeError, match="matrix product"):
        np.eye(3, dtype=np.uint8) @ x
    with pytest.raises(TypeError):
        np.add(x, 1)  # NumPy's functions do not take encrypted arrays
    # An array result too large for the ciphertext limit is refused before it is built.
    with pytest.raises(encint.LimitError):
        ck.encrypt(1, "u8") + np.broadcast_to(np.uint8(1), (10**6,))
