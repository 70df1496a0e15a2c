"""FV batches: encrypt a NumPy array (or any sequence of ints) into the slots of one FV
ciphertext, add and multiply slot-wise, decrypt to a NumPy array.

Values live modulo the plaintext modulus ``t``; ``decrypt(..., signed=True)`` maps
``v > t // 2`` to ``v - t``.

FV has no bootstrapping: each product uses a level of the parameter set's depth
(``batch.depth``, at most ``batch.max_depth``: 5 for ``"128-8192"``, 12 for
``"128-16384"``, 26 for ``"128-32768"``). A product past it raises
``encint.NoiseBudgetError`` before any work, and ``decrypt`` checks the noise of the
batch and raises the same error rather than return wrong values (noise also grows with
long chains of additions).
"""

from __future__ import annotations

from . import _encint

__all__ = ["FvKeys"]


class FvKeys:
    """An FV key set (secret: keep it on the client side).

    ``params`` names a parameter set of the FV crate; ``"128-8192"`` (default),
    ``"128-16384"`` and ``"128-32768"`` are the 128-bit sets of the
    HomomorphicEncryption.org standard.
    """

    def __init__(self, params: str = "128-8192"):
        self._keys = _encint.FvKeys(params)

    @property
    def slots(self) -> int:
        """Number of slots of a batch."""
        return self._keys.slots

    @property
    def plaintext_modulus(self) -> int:
        """The plaintext modulus ``t``."""
        return self._keys.plaintext_modulus

    def encrypt(self, values) -> "_encint.FvBatch":
        """Encrypts up to ``slots`` integers (reduced mod ``t``; missing slots are 0)."""
        t, n = self.plaintext_modulus, self.slots
        vals = [int(v) % t for v in _tolist(values)]
        if len(vals) > n:
            raise _encint.InvalidInputError(f"{len(vals)} values, but a batch has {n} slots")
        return self._keys._encrypt(vals + [0] * (n - len(vals)))

    def decrypt(self, batch, count: int | None = None, signed: bool = False):
        """Decrypts the first ``count`` slots (all by default) to a NumPy array of int64
        (a list if NumPy is not installed)."""
        vals = self._keys._decrypt(batch)
        if count is not None:
            vals = vals[:count]
        if signed:
            t = self.plaintext_modulus
            vals = [v - t if v > t // 2 else v for v in vals]
        try:
            import numpy as np
        except ImportError:
            return vals
        return np.asarray(vals, dtype=np.int64)


def _tolist(values):
    if hasattr(values, "tolist"):
        values = values.tolist()
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"FV slots take integers, not {type(v).__name__}")
        out.append(v)
    return out
