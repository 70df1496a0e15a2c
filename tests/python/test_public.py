"""Public-key encryption from Python (`ClientKey.public_key`, `PublicKey.encrypt`): a party
holding only the public key's bytes encrypts typed values and exact integers; the values
compute and decrypt, with the client key, to the plain integers they came from; truncated
bytes, values outside their type and another key set's values are errors."""

import pytest

import encint


def test_a_party_with_only_the_public_key_encrypts(keys):
    ck, _ = keys
    data = ck.public_key().to_bytes()
    assert len(data) < 20_000
    pk = encint.PublicKey.from_bytes(data)
    assert pk.key_set == ck.key_set
    for ty, cls, value in [
        ("u16", encint.FheUint16, 40000),
        ("i8", encint.FheInt8, -100),
        (encint.FheUint64, encint.FheUint64, 2**64 - 1),
        ("bool", encint.FheBool, 1),
    ]:
        x = cls.from_bytes(pk.encrypt(value, ty))
        assert type(x) is cls
        assert int(x.decrypt(ck)) == value
    assert ck.decrypt(encint.EncInt.from_bytes(pk.encrypt(-1234, 12))) == -1234
    assert ck.decrypt(encint.EncInt.from_bytes(pk.encrypt(5))) == 5


def test_public_key_values_compute(keys):
    ck, _ = keys
    pk = encint.PublicKey.from_bytes(ck.public_key().to_bytes())
    a = encint.FheUint16.from_bytes(pk.encrypt(40000, "u16"))
    b = encint.FheUint16.from_bytes(pk.encrypt(30000, "u16"))
    assert (a + b).decrypt(ck) == (40000 + 30000) % 2**16
    assert (a * b).decrypt(ck) == (40000 * 30000) % 2**16
    x = encint.EncInt.from_bytes(pk.encrypt(-77, 8))
    y = ck.encrypt(93, 8)
    assert ck.decrypt(x * y) == -77 * 93


def test_errors(keys):
    ck, _ = keys
    pk = ck.public_key()
    with pytest.raises(encint.InvalidInputError):
        pk.encrypt(256, "u8")
    with pytest.raises(encint.InvalidInputError):
        pk.encrypt(16, 4)
    data = pk.to_bytes()
    for cut in [0, 5, 13, 100, len(data) // 2, len(data) - 1]:
        with pytest.raises(encint.Error):
            encint.PublicKey.from_bytes(data[:cut])
    with pytest.raises(encint.Error):
        encint.ServerKey.from_bytes(data)
    ct = pk.encrypt(7, "u8")
    for cut in range(0, len(ct), 97):
        with pytest.raises(encint.Error):
            encint.FheUint8.from_bytes(ct[:cut])
    with pytest.raises(encint.InvalidInputError):
        encint.FheUint16.from_bytes(ct)
    other = encint.ClientKey.generate().public_key()
    assert other.key_set != ck.key_set
    x = encint.FheUint8.from_bytes(other.encrypt(3, "u8"))
    with pytest.raises(encint.KeyMismatchError):
        x.decrypt(ck)
    with pytest.raises(encint.InvalidInputError):
        encint.ClientKey.clear().public_key()
