"""Shared fixtures: one real key pair per session (key generation takes seconds) and the
clear-mode key for wide sweeps of the same circuits."""

import random

import pytest

import encint


@pytest.fixture(scope="session")
def keys():
    """(client_key, server_key) of one real key set, the server key activated."""
    ck = encint.ClientKey.generate()
    sk = ck.server_key()
    encint.set_server_key(sk)
    return ck, sk


@pytest.fixture(scope="session")
def clear():
    """The clear-mode key: the same circuits on plain digits."""
    return encint.ClientKey.clear()


@pytest.fixture()
def rng():
    return random.Random(0xE1C1)
