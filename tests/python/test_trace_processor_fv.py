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
