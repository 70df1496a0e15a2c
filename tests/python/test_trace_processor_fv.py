"""Traced evaluation and costs, the byte processor, FV batches."""

import pathlib

import pytest

import encint

ROOT = pathlib.Path(__file__).resolve().parents[2]


def poly(a, b, c):
    return 3 * a * b - c, encint.max(a, c), encint.select(a < b, a, b)


def test_trace_clear(clear, rng):
    for _ in range(20):
        a, b, c = (rng.randrange(-500, 500) for _ in range(3))
        out = encint.trace(poly, *(clear.encrypt(v, 10) for v in (a, b, c)))
        assert [clear.decrypt(o) for o in out] == [3 * a * b - c, max(a, c), min(a, b)]


def test_trace_real(keys):
    ck, _ = keys
    out = encint.trace(poly, ck.encrypt(-7, 4), ck.encrypt(5, 4), ck.encrypt(2, 4))
    assert [ck.decrypt(o) for o in out] == [3 * -7 * 5 - 2, 2, -7]


def test_cost_without_keys():
    one = encint.cost(lambda a, b: a + b, [16, 16])
    two = encint.cost(lambda a, b, c, d: (a + b, c + d), [16, 16, 16, 16])
    assert one["bootstraps"] > 0 and one["depth"] > 0
    # Independent operations in one circuit: bootstraps add up, levels are shared.
    assert two["bootstraps"] == 2 * one["bootstraps"]
    assert two["depth"] == one["depth"]
    assert two["width"] == 2 * one["width"]
    mul = encint.cost(lambda a, b: a * b, [16, 16])
    assert mul["bootstraps"] > one["bootstraps"]


def test_trace_bad_input(clear):
    with pytest.raises(TypeError):
        encint.trace(lambda a: a + 1, 5)
    with pytest.raises(TypeError):
        encint.trace(lambda a: 1 if a < 2 else 0, clear.encrypt(1, 4))
    with pytest.raises(TypeError):
        encint.cost(lambda a: 3, [4])


def test_processor_bubble_sort_clear():
    prog = encint.Program((ROOT / "examples" / "bubble_sort.asm").read_text())
    data = [9, 3, 200, 0, 17]
    assert prog.run_clear({"a": data}) == {"a": sorted(data)}
    assert prog.cost()["bootstraps"] > 0


def test_processor_errors():
    with pytest.raises(encint.ProgramError):
        encint.Program("input x\ny = FROB x\noutput y\n")
    prog = encint.Program("input x\ny = ADDI x, 3\noutput y\n")
    with pytest.raises(encint.ProgramError):
        prog.run_clear({})
    with pytest.raises(encint.InvalidInputError):
        prog.run_clear({"x": 1000})


def test_fv_batch():
    np = pytest.importorskip("numpy")
    keys = encint.FvKeys()
    t = keys.plaintext_modulus
    a = np.arange(100, dtype=np.int64)
    b = np.arange(100, dtype=np.int64) * 3 + 1
    ea, eb = keys.encrypt(a), keys.encrypt(b)
    assert (keys.decrypt(ea + eb, 100) == (a + b) % t).all()
    assert (keys.decrypt(ea * eb, 100) == (a * b) % t).all()
    with pytest.raises(encint.InvalidInputError):
        keys.encrypt(np.zeros(keys.slots + 1, dtype=np.int64))
    with pytest.raises(encint.FvError):
        encint.FvKeys("no such set")


def bitwise(a, b):
    return a // b, a % b, a & b, a | b, a ^ b, ~a, a << 3, a >> 2, 100 // b, 7 - a % 5


def bitwise_ref(a, b):
    return a // b, a % b, a & b, a | b, a ^ b, ~a, a << 3, a >> 2, 100 // b, 7 - a % 5


def test_trace_bitwise_clear(clear, rng):
    for _ in range(25):
        a = rng.randrange(-2000, 2000)
        b = rng.choice([-1, 1]) * rng.randrange(1, 300)
        out = encint.trace(bitwise, clear.encrypt(a, 12), clear.encrypt(b, 12))
        assert [clear.decrypt(o) for o in out] == list(bitwise_ref(a, b)), (a, b)
    # Operations mixed with arithmetic in one circuit, and shifts by 0 and past the width.
    f = lambda a, b: ((a * b) & 0xFF) ^ (a >> 20) | (b << 0)  # noqa: E731
    for a, b in [(-77, 5), (1000, -3), (0, 0)]:
        (r,) = [encint.trace(f, clear.encrypt(a, 11), clear.encrypt(b, 11))]
        assert clear.decrypt(r) == ((a * b) & 0xFF) ^ (a >> 20) | (b << 0)
    # The same circuits as the eager operators.
    x, y = clear.encrypt(-123, 8), clear.encrypt(10, 8)
    eager = [clear.decrypt(v) for v in (x // y, x % y, x & y, x | y, x ^ y, ~x, x << 3, x >> 2)]
    traced = encint.trace(lambda a, b: bitwise(a, b)[:8], x, y)
    assert [clear.decrypt(v) for v in traced] == eager


def test_trace_bitwise_errors(clear):
    x = clear.encrypt(5, 4)
    with pytest.raises(ZeroDivisionError):
        encint.trace(lambda a: a // 0, x)
    with pytest.raises(ZeroDivisionError):
        encint.trace(lambda a: a % 0, x)
    with pytest.raises(ValueError):
        encint.trace(lambda a: a << -1, x)
    with pytest.raises(ValueError):
        encint.trace(lambda a: a << (encint.MAX_DIGITS + 1), x)
    with pytest.raises(TypeError):
        encint.trace(lambda a, b: a << b, x, x)
    with pytest.raises(TypeError):
        encint.trace(lambda a: a & 1.5, x)
    with pytest.raises(encint.LimitError):
        encint.trace(lambda a: a << encint.MAX_DIGITS, x)


def test_trace_bitwise_real(keys):
    ck, _ = keys
    out = encint.trace(lambda a, b: (a // b, a ^ b), ck.encrypt(-5, 3), ck.encrypt(2, 3))
    assert [ck.decrypt(o) for o in out] == [-5 // 2, -5 ^ 2]


def test_processor_keys_files_and_progress(tmp_path, monkeypatch):
    import sys
    import types

    calls = []

    class Bar:
        def __init__(self, total=None, desc=None, **kwargs):
            calls.append(("bar", desc, total))

        def update(self, n=1):
            calls.append(("update", n))

        def close(self):
            calls.append(("close",))

    module = types.ModuleType("tqdm")
    module.tqdm = Bar
    monkeypatch.setitem(sys.modules, "tqdm", module)
    encint.set_progress(True, min_bootstraps=0)
    try:
        ck, pk = encint.ProcessorKeys.generate()
        assert calls == [("bar", "generating keys", 1), ("update", 1), ("close",)]
        d = tmp_path / "keys"
        pk.save(str(d))
        assert sorted(p.name for p in d.iterdir()) == ["packing.key", "server.key", "tree.key"]
        with pytest.raises(FileExistsError):
            pk.save(str(d))
        loaded = encint.ProcessorKeys.load(str(d))
        prog = encint.Program("input x\ny = ADDI x, 3\nz = EQI y, 20\noutput y\noutput z\n")
        calls.clear()
        down = prog.run(loaded, prog.encrypt_inputs(ck, {"x": 17}))
        assert prog.decrypt_outputs(ck, down) == prog.run_clear({"x": 17}) == {"y": 20, "z": 1}
        # One bar over the program's bootstraps, updated at each level, closed once.
        updates = [c[1] for c in calls if c[0] == "update"]
        assert calls[0] == ("bar", "processor", prog.cost()["bootstraps"])
        assert sum(updates) == prog.cost()["bootstraps"] and len(updates) >= 2
        assert calls[-1] == ("close",) and calls.count(("close",)) == 1
    finally:
        encint.set_progress(True)
    # Bad files: a missing one, keys of another role (a cut server key is still named),
    # a truncated one.
    tree = (d / "tree.key").read_bytes()
    (d / "tree.key").unlink()
    with pytest.raises(FileNotFoundError):
        encint.ProcessorKeys.load(str(d))
    (d / "tree.key").write_bytes(ck.to_bytes())
    with pytest.raises(encint.KeyRoleError):
        encint.ProcessorKeys.load(str(d))
    server = (d / "server.key").read_bytes()
    (d / "tree.key").write_bytes(server[: len(server) // 2])
    with pytest.raises(encint.KeyRoleError):
        encint.ProcessorKeys.load(str(d))
    (d / "tree.key").write_bytes(tree[: len(tree) // 2])
    with pytest.raises(encint.FormatError):
        encint.ProcessorKeys.load(str(d))


def test_fv_words(rng):
    keys = encint.FvBitsKeys()  # 128-8192: usable depth 4
    assert keys.slots == 8192 and keys.usable_depth == 4
    n = 64
    xs = [rng.randrange(16) for _ in range(n)]
    ys = [rng.randrange(16) for _ in range(n)]
    a, b = keys.encrypt(xs, 4), keys.encrypt(ys, 4)
    assert len(a) == n and a.width == 4 and not a.signed
    assert keys.decrypt(a) == xs
    assert keys.decrypt(a + b) == [(x + y) % 16 for x, y in zip(xs, ys)]
    assert keys.decrypt(a - b) == [(x - y) % 16 for x, y in zip(xs, ys)]
    assert keys.decrypt(a ^ b) == [x ^ y for x, y in zip(xs, ys)]
    assert keys.decrypt(a & b) == [x & y for x, y in zip(xs, ys)]
    lt = a < b
    assert lt.width == 1 and keys.decrypt(lt) == [int(x < y) for x, y in zip(xs, ys)]
    assert keys.decrypt(a == b) == [int(x == y) for x, y in zip(xs, ys)]
    assert keys.decrypt(encint.select(lt, a, b)) == [min(x, y) for x, y in zip(xs, ys)]
    s = keys.encrypt([-8, -1, 0, 7], 4, signed=True)
    t = keys.encrypt([3, -2, 5, -8], 4, signed=True)
    assert keys.decrypt(s + t) == [-5, -3, 5, -1]
    assert keys.decrypt(s >= t) == [0, 1, 0, 1]
    # Errors: depth beyond the keys' set (before any product), mixed words, bad values.
    with pytest.raises(encint.NoiseBudgetError):
        a // b
    with pytest.raises(encint.InvalidInputError):
        s // t  # signed division is not implemented on FV
    with pytest.raises(encint.InvalidInputError):
        a + s
    with pytest.raises(encint.InvalidInputError):
        keys.encrypt([16], 4)
    with pytest.raises(encint.InvalidInputError):
        keys.encrypt([], 4)
    with pytest.raises(encint.KeyMismatchError):
        encint.FvBitsKeys().decrypt(a)
    with pytest.raises(TypeError):
        a + 1
