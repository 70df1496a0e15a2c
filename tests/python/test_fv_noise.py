"""FV batches never decrypt to wrong values: a product past the parameter set's depth is
refused before any work, and decryption checks the noise. Reference: plain modular
arithmetic."""

import time

import pytest

import encint


def test_repeated_squaring_is_right_or_refused():
    keys = encint.FvKeys()  # 128-8192, HPR
    t = keys.plaintext_modulus
    x = keys.encrypt([3, 5, 7])
    expect = [3, 5, 7]
    refused_at = None
    for i in range(1, 9):
        start = time.monotonic()
        try:
            x = x * x
        except encint.NoiseBudgetError as e:
            assert "depth" in str(e)
            assert time.monotonic() - start < 2.0
            refused_at = i
            break
        expect = [v * v % t for v in expect]
        assert x.depth == i
        assert list(keys.decrypt(x, count=3)) == expect, f"squaring {i}"
    assert refused_at is not None, "eight squarings were never refused"
    assert refused_at == x.max_depth + 1
    assert issubclass(encint.NoiseBudgetError, encint.Error)


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
