"""FV batches never decrypt to wrong values: a product past the parameter set's depth is
refused before any work, and decryption checks the noise. Reference: plain modular
arithmetic. No test measures wall-clock time: that the refusal does no work is counted in
CPU time, in a child process whose CPU time is limited."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

import encint

# A thousand refused products in a child allowed 5 s of CPU time past its setup: refused
# before any work they take a millisecond in all, done first they would take seconds each
# (a product of 8192 slots at depth 5 is tens of milliseconds).
_REFUSALS = textwrap.dedent(
    """
    import resource
    import encint
    keys = encint.FvKeys()
    x = keys.encrypt([3, 5, 7])
    while True:
        try:
            y = x * x
        except encint.NoiseBudgetError:
            break
        x = y
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime) + 5
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    refused = 0
    for _ in range(1000):
        try:
            x * x
        except encint.NoiseBudgetError:
            refused += 1
    print(refused, x.depth)
    """
)


def test_repeated_squaring_is_right_or_refused():
    keys = encint.FvKeys()  # 128-8192, HPR
    t = keys.plaintext_modulus
    x = keys.encrypt([3, 5, 7])
    expect = [3, 5, 7]
    refused_at = None
    for i in range(1, 9):
        try:
            x = x * x
        except encint.NoiseBudgetError as e:
            assert "depth" in str(e)
            refused_at = i
            break
        expect = [v * v % t for v in expect]
        assert x.depth == i
        assert list(keys.decrypt(x, count=3)) == expect, f"squaring {i}"
    assert refused_at is not None, "eight squarings were never refused"
    assert refused_at == x.max_depth + 1
    assert issubclass(encint.NoiseBudgetError, encint.Error)
    # The refusal left its operand as it was.
    assert x.depth == x.max_depth and list(keys.decrypt(x, count=3)) == expect


def test_a_refused_product_does_no_work():
    r = subprocess.run([sys.executable, "-c", _REFUSALS], capture_output=True, text=True,
                       timeout=1800, env=dict(os.environ, MALLOC_ARENA_MAX="2"))
    assert r.returncode != -signal.SIGXCPU, "refused products used up the CPU-time limit"
    assert r.returncode == 0, r.stdout + r.stderr
    refused, depth = map(int, r.stdout.split())
    assert refused == 1000 and depth > 0


def test_noise_grown_by_additions_is_refused_at_decryption():
    keys = encint.FvKeys()
    t = keys.plaintext_modulus
    x = keys.encrypt([1, 2, 3])
    expect = [1, 2, 3]
    for step in range(1, 400):
        x = x + x
        expect = [2 * v % t for v in expect]
        try:
            got = list(keys.decrypt(x, count=3))
        except encint.NoiseBudgetError:
            assert x.depth == 0
            return
        assert got == expect, f"silent wrong value after {step} doublings"
    pytest.fail("399 doublings never exhausted the noise")
