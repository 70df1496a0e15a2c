"""Packed results from Python (`ClientKey.packing_key`, `PackingKey.pack`,
`ClientKey.decrypt_packed`): results of the typed family and exact integers, packed by the
server side, decrypt to the plain results; another key set and damaged bytes are errors."""

import pytest

import encint


@pytest.fixture(scope="module")
def packing(keys):
    ck, _ = keys
    return encint.PackingKey.from_bytes(ck.packing_key().to_bytes())


def test_typed_and_exact_results(keys, packing):
    ck, _ = keys
    assert packing.key_set == ck.key_set
    a = encint.FheUint16.encrypt(51234, ck)
    b = encint.FheUint16.encrypt(40001, ck)
    data = packing.pack(a + b)
    assert len(data) < 4000
    assert ck.decrypt_packed(data) == (51234 + 40001) % 2**16
    c = encint.FheInt8.encrypt(-77, ck)
    d = encint.FheInt8.encrypt(93, ck)
    assert ck.decrypt_packed(packing.pack(c * d)) == ((-77 * 93 + 128) % 256) - 128
    assert ck.decrypt_packed(packing.pack(encint.FheUint64.encrypt(2**64 - 1, ck))) == 2**64 - 1
    x = ck.encrypt(-1234, 12)
    y = ck.encrypt(567, 12)
    assert ck.decrypt_packed(packing.pack(x * y)) == -1234 * 567


def test_errors(keys, packing):
    ck, _ = keys
    data = packing.pack(encint.FheUint8.encrypt(200, ck))
    for cut in range(0, len(data), 301):
        with pytest.raises(encint.Error):
            ck.decrypt_packed(data[:cut])
    other = encint.ClientKey.generate()
    with pytest.raises(encint.KeyMismatchError):
        other.decrypt_packed(data)
    with pytest.raises(encint.Error):
        packing.pack(other.encrypt(5, 4))
    with pytest.raises(encint.InvalidInputError):
        packing.pack(5)
    with pytest.raises(encint.Error):
        encint.PackingKey.from_bytes(ck.public_key().to_bytes())
