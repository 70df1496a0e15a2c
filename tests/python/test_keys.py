"""Real keys on a sample: round trips, operators against Python ints, serialization and
pickling through the checked envelope, and bad input raising the right exception."""

import operator
import pickle

import pytest

import encint


def test_round_trip_encint(keys, rng):
    ck, _ = keys
    for v, w in [(0, 1), (-1, 1), (1234, 16), (-(2**40) + 3, 41), (2**100 + 7, 101)]:
        assert ck.decrypt(ck.encrypt(v, w)) == v
    assert ck.decrypt(ck.encrypt(-77)) == -77  # default width 32


def test_round_trip_typed(keys):
    ck, _ = keys
    assert ck.decrypt(ck.encrypt(200, "u8")) == 200
    assert ck.decrypt(ck.encrypt(-3, "i8")) == -3


@pytest.mark.parametrize(
    "op", [operator.add, operator.sub, operator.mul, operator.lt, operator.eq]
)
def test_encint_ops_sample(keys, rng, op):
    ck, _ = keys
    # One case per operator with real keys (the sweeps run in clear mode, same circuits).
    for _ in range(1):
        a, b = rng.randrange(-31, 32), rng.randrange(-31, 32)
        r = op(ck.encrypt(a, 6), ck.encrypt(b, 6))
        assert ck.decrypt(r) == int(op(a, b))


def test_encint_more_ops_sample(keys):
    ck, _ = keys
    a, b = ck.encrypt(-45, 7), ck.encrypt(13, 7)
    assert ck.decrypt(a * 3 - 5) == -45 * 3 - 5
    assert ck.decrypt(-a) == 45
    assert ck.decrypt(abs(a)) == 45
    assert ck.decrypt(a & b) == -45 & 13
    assert ck.decrypt(a >> 2) == -45 >> 2
    assert ck.decrypt(encint.max(a, b)) == 13
    assert ck.decrypt(encint.select(a < b, a, b)) == -45


def test_typed_ops_sample(keys):
    ck, _ = keys
    a, b = ck.encrypt(200, "u8"), ck.encrypt(7, "u8")
    assert ck.decrypt(a + b) == (200 + 7) % 256
    assert ck.decrypt(a // 7) == 200 // 7
    assert ck.decrypt(a ^ b) == 200 ^ 7
    assert ck.decrypt(a < b) is False


def test_serialization_and_pickle(keys, tmp_path):
    ck, sk = keys
    x = ck.encrypt(-999, 12)
    data = x.to_bytes()
    assert ck.decrypt(encint.EncInt.from_bytes(data)) == -999
    assert ck.decrypt(pickle.loads(pickle.dumps(x))) == -999
    typed = ck.encrypt(-5, "i6")
    assert ck.decrypt(pickle.loads(pickle.dumps(typed))) == -5
    ck2 = pickle.loads(pickle.dumps(ck))
    assert ck2.key_set == ck.key_set
    assert ck2.decrypt(x) == -999
    sk2 = pickle.loads(pickle.dumps(sk))
    assert sk2.key_set == sk.key_set
    # Files: secret key 0600, no silent overwrite.
    path = tmp_path / "client.key"
    ck.save(str(path))
    assert (path.stat().st_mode & 0o777) == 0o600
    with pytest.raises(FileExistsError):
        ck.save(str(path))
    ck.save(str(path), overwrite=True)
    assert encint.ClientKey.load(str(path)).decrypt(x) == -999
    spath = tmp_path / "server.key"
    sk.save(str(spath))
    assert encint.ServerKey.load(str(spath)).key_set == sk.key_set


def test_bad_input(keys, clear):
    ck, sk = keys
    x = ck.encrypt(5, 8)
    data = x.to_bytes()
    # Wrong key role: a client key read as a server key and the reverse.
    with pytest.raises(encint.KeyRoleError):
        encint.ServerKey.from_bytes(ck.to_bytes())
    with pytest.raises(encint.KeyRoleError):
        encint.EncInt.from_bytes(ck.to_bytes())
    # Truncated, corrupted, empty bytes.
    for bad in (data[: len(data) // 2], data[:5], b"", b"not an envelope at all", bytes(64)):
        with pytest.raises(encint.FormatError):
            encint.EncInt.from_bytes(bad)
    with pytest.raises(encint.FormatError):
        encint.ClientKey.from_bytes(data[:-1])
    # Wrong types.
    with pytest.raises(TypeError):
        x + "3"
    with pytest.raises(TypeError):
        x + 1.5
    with pytest.raises(TypeError):
        ck.decrypt(5)
    with pytest.raises(TypeError):
        ck.encrypt("5")
    with pytest.raises(TypeError):
        bool(x < 3)
    with pytest.raises(TypeError):
        x + ck.encrypt(1, "u8")
    # Values that do not fit, limits.
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt(256, 8)
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt(-1, "u8")
    with pytest.raises(encint.LimitError):
        ck.encrypt(1, encint.MAX_DIGITS + 1)
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt(1, "u8") + ck.encrypt(1, "u9")
    with pytest.raises(ZeroDivisionError):
        x // 0
    # Mixing modes and keys.
    with pytest.raises(encint.InvalidInputError):
        x + clear.encrypt(1, 8)
    with pytest.raises(encint.KeyMismatchError):
        clear.decrypt(x)
    with pytest.raises(encint.KeyMismatchError):
        ck.decrypt(clear.encrypt(1, 8))


def test_other_key_and_no_server(keys):
    ck, sk = keys
    other = encint.ClientKey.generate()
    y = other.encrypt(3, 4)
    with pytest.raises(encint.KeyMismatchError):
        ck.decrypt(y)
    with pytest.raises(encint.KeyMismatchError):
        ck.encrypt(1, 4) + y  # the server key belongs to ck's key set
    encint.set_server_key(None)
    try:
        with pytest.raises(encint.NoServerKeyError):
            ck.encrypt(1, 4) + ck.encrypt(2, 4)
    finally:
        encint.set_server_key(sk)
    assert ck.decrypt(ck.encrypt(1, 4) + ck.encrypt(2, 4)) == 3


def test_typed_envelopes_keep_their_kind(keys):
    ck, _ = keys
    neg = ck.encrypt(-5, "i6")
    data = neg.to_bytes()
    back = encint.FheValue.from_bytes(data)  # no type given: the envelope holds it
    assert back.signed and back.bits == 6 and type(back) is encint.FheInt(6)
    assert ck.decrypt(back) == -5
    assert ck.decrypt(encint.FheInt(6).from_bytes(data)) == -5
    with pytest.raises(encint.InvalidInputError):
        encint.FheUint(6).from_bytes(data)
    u = encint.FheValue.from_bytes(ck.encrypt(59, "u6").to_bytes())
    assert not u.signed and ck.decrypt(u) == 59
    p = pickle.loads(pickle.dumps(neg))
    assert p.signed and ck.decrypt(p) == -5
    # Bytes of another kind are never read as a typed value: an EncInt's digits are no
    # typed value's (`| 0` on them would decrypt to a wrong value), and the other way round.
    as_int = ck.encrypt(-3, 4).to_bytes()
    for cls in (encint.FheValue, encint.FheInt(4)):
        with pytest.raises(encint.InvalidInputError, match="exact integer"):
            cls.from_bytes(as_int)
    with pytest.raises(encint.KeyRoleError, match="FheValue"):
        encint.EncInt.from_bytes(data)
    for bad in (data[:-1], data[:20], b""):
        with pytest.raises(encint.FormatError):
            encint.FheValue.from_bytes(bad)
    with pytest.raises(encint.KeyRoleError):
        encint.FheValue.from_bytes(ck.to_bytes())
