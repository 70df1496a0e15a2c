"""Seeded uploads from Python (`ClientKey.encrypt_seeded`): a few hundred bytes per value,
read back by the ordinary `from_bytes` of the type (or of `EncInt`), decrypting to the
plain integers they came from and computing like them; truncated bytes, values outside
their type and another key set's values are errors."""

import pytest

import encint


def test_typed_and_exact_values_round_trip(keys):
    ck, _ = keys
    for ty, cls, value in [
        ("u16", encint.FheUint16, 40000),
        ("i8", encint.FheInt8, -100),
        (encint.FheUint64, encint.FheUint64, 2**64 - 1),
        ("bool", encint.FheBool, 1),
    ]:
        data = ck.encrypt_seeded(value, ty)
        x = cls.from_bytes(data)
        assert type(x) is cls
        assert int(x.decrypt(ck)) == value
    data = ck.encrypt_seeded(40000, "u16")
    assert len(data) <= 980
    assert len(data) * 100 < len(encint.FheUint16.encrypt(40000, ck).to_bytes())
    x = encint.EncInt.from_bytes(ck.encrypt_seeded(-1234, 12))
    assert ck.decrypt(x) == -1234
    assert ck.decrypt(encint.EncInt.from_bytes(ck.encrypt_seeded(5))) == 5


def test_expanded_values_compute(keys):
    ck, _ = keys
    a = encint.FheUint16.from_bytes(ck.encrypt_seeded(40000, "u16"))
    b = encint.FheUint16.encrypt(30000, ck)
    assert (a + b).decrypt(ck) == (40000 + 30000) % 2**16
    x = encint.EncInt.from_bytes(ck.encrypt_seeded(-77, 8))
    y = ck.encrypt(93, 8)
    assert ck.decrypt(x * y) == -77 * 93


def test_errors(keys):
    ck, _ = keys
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt_seeded(256, "u8")
    with pytest.raises(encint.InvalidInputError):
        ck.encrypt_seeded(16, 4)
    data = ck.encrypt_seeded(7, "u8")
    for cut in range(len(data)):
        with pytest.raises(encint.Error):
            encint.FheUint8.from_bytes(data[:cut])
    with pytest.raises(encint.InvalidInputError):
        encint.FheUint16.from_bytes(data)
    other = encint.ClientKey.generate()
    x = encint.FheUint8.from_bytes(other.encrypt_seeded(3, "u8"))
    with pytest.raises(encint.KeyMismatchError):
        x.decrypt(ck)
    with pytest.raises(encint.InvalidInputError):
        encint.ClientKey.clear().encrypt_seeded(1, "u8")
