"""Inputs that used to give silent garbage: a select condition wider than one digit, extra
or surplus byte-processor inputs, and ciphertexts of the 64-bit-keyswitch key set
labelled as the default set. References: plain Python integers and the envelope header."""

import os
import pathlib
import subprocess

import pytest

import encint

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_select_condition_must_be_one_digit(clear):
    a, b = clear.encrypt(3, 8), clear.encrypt(5, 8)
    for c, want in [(a < b, 3), (b < a, 5)]:
        assert clear.decrypt(encint.select(c, a, b)) == want
    with pytest.raises(encint.InvalidInputError, match="1-digit"):
        encint.select(clear.encrypt(2, 3), a, b)
    # A one-digit condition is used as the factor of b + c·(a − b): -1 gives 2b − a.
    assert clear.decrypt(encint.select(clear.encrypt(-1, 1), a, b)) == 2 * 5 - 3


SRC = """
input a
input xs[2]
s = ADD a, xs[0]
s = ADD s, xs[1]
output s
"""


def test_program_inputs_must_match_the_program():
    p = encint.Program(SRC)
    assert p.run_clear({"a": 1, "xs": [2, 3]})["s"] == 6
    with pytest.raises(encint.ProgramError, match="not an input"):
        p.run_clear({"a": 1, "xs": [2, 3], "b": 4})
    with pytest.raises(encint.ProgramError, match=r"xs\[2\]"):
        p.run_clear({"a": 1, "xs": [2, 3, 4]})
    with pytest.raises(encint.ProgramError, match="missing"):
        p.run_clear({"a": 1, "xs": [2]})


def test_ciphertexts_name_their_key_sets_parameters(tmp_path, keys):
    exe = ROOT / "target" / "release" / "encint"
    if not exe.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{exe} is missing: CI builds it before the Python tests")
        pytest.skip("the encint binary is not built")
    ks64 = tmp_path / "ks64"
    r = subprocess.run(
        [str(exe), "keygen", "--out", str(ks64), "--params", "ks64"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    ck = encint.ClientKey.load(str(ks64 / "client.key"))
    x = ck.encrypt(-5, 4)
    typed = ck.encrypt(200, "u8")
    for v in (x, typed):
        head = v.to_bytes()[:200]
        assert b"KS_PBS_TUNIFORM" in head and b"KS32" not in head, head
    back = encint.EncInt.from_bytes(x.to_bytes())
    assert ck.decrypt(back) == -5
    # The default set's ciphertexts keep the default label.
    default, _ = keys
    assert b"KS32_PBS" in default.encrypt(1, 2).to_bytes()[:200]
