"""Progress bars of long operations: the bar is driven at level boundaries (its total is
the circuit's bootstrap count, its updates add up to it), a fake ``tqdm`` module is used
when it is the one importable, nothing breaks without tqdm, an exception in the bar stops
the run, and the work runs without the GIL; the typed family's operators, array calls
and compiled functions report the same way, and Ctrl-C stops their long circuits at a
level boundary."""

import ast
import subprocess
import sys
import textwrap
import threading
import types

import pytest

import encint


class Recorder:
    """A tqdm stand-in that records what the native module does with it."""

    bars = []

    def __init__(self, total=None, desc=None, **kwargs):
        self.total, self.desc, self.kwargs = total, desc, kwargs
        self.updates, self.closed = [], 0
        Recorder.bars.append(self)

    def update(self, n=1):
        self.updates.append(n)

    def close(self):
        self.closed += 1


@pytest.fixture()
def fake_tqdm(monkeypatch):
    """A fake ``tqdm`` module in sys.modules; progress on for every circuit."""
    module = types.ModuleType("tqdm")
    module.tqdm = Recorder
    monkeypatch.setitem(sys.modules, "tqdm", module)
    Recorder.bars = []
    encint.set_progress(True, min_bootstraps=0)
    yield Recorder.bars
    encint.set_progress(True)


@pytest.fixture()
def no_tqdm(monkeypatch):
    """``import tqdm`` fails (as when it is not installed); progress on for every circuit."""
    monkeypatch.setitem(sys.modules, "tqdm", None)
    encint.set_progress(True, min_bootstraps=0)
    yield
    encint.set_progress(True)


def mul3(a, b, c):
    return a * b - c, a // c


def test_bar_driven_by_trace_clear(fake_tqdm, clear):
    cost = encint.cost(mul3, [10, 10, 10])
    out = encint.trace(mul3, clear.encrypt(-300, 10), clear.encrypt(21, 10), clear.encrypt(7, 10))
    assert [clear.decrypt(o) for o in out] == [-300 * 21 - 7, -300 // 7]
    (bar,) = fake_tqdm
    assert bar.desc == "trace"
    assert bar.total == cost["bootstraps"]
    # One update per level with bootstraps, adding up to the total.
    assert sum(bar.updates) == cost["bootstraps"]
    assert len(bar.updates) == cost["depth"]
    assert all(n > 0 for n in bar.updates)
    assert bar.closed == 1


def test_threshold_and_off(fake_tqdm, clear):
    a, b = clear.encrypt(1000, 12), clear.encrypt(-999, 12)
    small = encint.cost(lambda x, y: x * y, [12, 12])["bootstraps"]
    encint.set_progress(True, min_bootstraps=small + 1)
    assert clear.decrypt(a * b) == -999000
    assert fake_tqdm == []
    encint.set_progress(True, min_bootstraps=small)
    assert clear.decrypt(a * b) == -999000
    assert len(fake_tqdm) == 1 and sum(fake_tqdm[0].updates) == small
    encint.set_progress(False)
    assert clear.decrypt(a * b) == -999000
    assert len(fake_tqdm) == 1
    # A custom factory instead of tqdm.
    seen = []
    encint.set_progress(lambda desc, total: seen.append((desc, total)), min_bootstraps=0)
    assert clear.decrypt(a * b) == -999000
    assert seen == [("encint", small)]
    with pytest.raises(ValueError):
        encint.set_progress(True, min_bootstraps=-1)
    with pytest.raises(TypeError):
        encint.set_progress("yes")


def test_nothing_breaks_without_tqdm(no_tqdm, clear, keys):
    ck, _ = keys
    out = encint.trace(mul3, clear.encrypt(5, 6), clear.encrypt(-6, 6), clear.encrypt(7, 6))
    assert [clear.decrypt(o) for o in out] == [5 * -6 - 7, 5 // 7]
    assert ck.decrypt(ck.encrypt(3, 4) * ck.encrypt(-5, 4)) == -15
    assert encint.compile(lambda x: x // 7, "u8").run_clear(200) == 200 // 7


def test_exception_in_bar_stops_the_run(monkeypatch, clear):
    class Interrupting(Recorder):
        def update(self, n=1):
            raise KeyboardInterrupt

    module = types.ModuleType("tqdm")
    module.tqdm = Interrupting
    monkeypatch.setitem(sys.modules, "tqdm", module)
    Recorder.bars = []
    encint.set_progress(True, min_bootstraps=0)
    try:
        with pytest.raises(KeyboardInterrupt):
            clear.encrypt(77, 10) * clear.encrypt(-3, 10)
        assert Recorder.bars[0].closed == 1
    finally:
        encint.set_progress(True)
    # Nothing is left behind: the next operation runs.
    assert clear.decrypt(clear.encrypt(77, 10) * clear.encrypt(-3, 10)) == -231


def test_real_keys_bar_and_gil_released(fake_tqdm, keys):
    ck, _ = keys
    a, b = ck.encrypt(-13, 4), ck.encrypt(11, 4)
    result, count = [], [0]

    def work():
        result.append(ck.decrypt(a * b))

    t = threading.Thread(target=work)
    t.start()
    # This thread keeps running Python code while the product is computed.
    while t.is_alive():
        count[0] += 1
    t.join()
    assert result == [-13 * 11]
    (bar,) = fake_tqdm
    assert bar.total == encint.cost(lambda x, y: x * y, [4, 4])["bootstraps"]
    assert sum(bar.updates) == bar.total and bar.closed == 1
    assert count[0] > 10000


# --- the typed family ----------------------------------------------------------------------


def _levels_match(bar, cost):
    # The bar's total is the circuit's bootstrap count and its updates add up to it, one
    # per level with bootstraps: at least the circuit's depth (a level may run in several
    # rounds when the schedule for the thread count is shorter).
    assert bar.total == cost["bootstraps"] > 0
    assert sum(bar.updates) == bar.total
    assert len(bar.updates) >= cost["depth"] and all(n > 0 for n in bar.updates)
    assert bar.closed == 1


def test_family_operations_drive_the_bar(fake_tqdm, keys):
    np = pytest.importorskip("numpy")
    ck, _ = keys
    fake_tqdm.clear()
    x, y = ck.encrypt(200, "u8"), ck.encrypt(7, "u8")
    assert (x * y).decrypt(ck) == 200 * 7 % 256
    (bar,) = fake_tqdm
    assert bar.desc == "encint"
    _levels_match(bar, encint.compile(lambda a, b: a * b, "u8", "u8").cost())
    # An array call.
    fake_tqdm.clear()
    a_np, b_np = np.array([200, 3, 90], np.uint8), np.array([100, 250, 9], np.uint8)
    a, b = ck.encrypt(a_np, "u8"), ck.encrypt(b_np, "u8")
    assert ((a < b).decrypt(ck) == (a_np < b_np)).all()
    (bar,) = fake_tqdm
    _levels_match(bar, encint.compile(lambda p, q: p < q, ("u8", (3,)), ("u8", (3,))).cost())
    # A compiled function's run.
    f = encint.compile(lambda p, q: (p * q).sum(), ("u8", (3,)), ("u8", (3,)))
    fake_tqdm.clear()
    assert f.run(a, b).decrypt(ck) == int((a_np.astype(int) * b_np).sum()) % 256
    (bar,) = fake_tqdm
    _levels_match(bar, f.cost())


_INTERRUPTED = textwrap.dedent(
    """
    import os, signal, sys, threading
    import encint
    ck = encint.ClientKey.generate()
    encint.set_server_key(ck.server_key())
    depth = encint.compile(lambda a, b: a // b, "u64", "u64").cost()["depth"]
    a, b = ck.encrypt(2**63 + 12345, "u64"), ck.encrypt(3, "u64")
    bars = []

    class Bar:
        def __init__(self, total):
            self.total, self.done, self.levels = total, 0, 0
        def update(self, n):
            self.done, self.levels = self.done + n, self.levels + 1
        def close(self):
            pass

    encint.set_progress(lambda desc, total: bars.append(Bar(total)) or bars[-1], min_bootstraps=0)
    # Ctrl-C from another thread two seconds into the division.
    threading.Timer(2.0, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        a // b
    except KeyboardInterrupt:
        print("interrupted", depth, [(bar.levels, bar.done, bar.total) for bar in bars])
        sys.exit(0)
    print("finished", depth, [(bar.levels, bar.done, bar.total) for bar in bars])
    sys.exit(1)
    """
)


def test_ctrl_c_stops_a_long_typed_operation_at_a_level_boundary():
    # A u64 division is thousands of bootstraps in hundreds of levels; Ctrl-C two seconds
    # in stops it at the next level boundary: far fewer levels run than the circuit has.
    r = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED], capture_output=True, text=True, timeout=1200
    )
    assert r.returncode == 0, r.stdout + r.stderr
    words = r.stdout.split(maxsplit=2)
    assert words[0] == "interrupted", r.stdout
    depth, bars = int(words[1]), ast.literal_eval(words[2])
    (levels, done, total), = bars
    assert total > 1000 and depth > 100
    assert 0 < levels and levels * 4 < depth, r.stdout
    assert done * 4 < total, r.stdout
