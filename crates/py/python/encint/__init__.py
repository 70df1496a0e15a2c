"""encint: exact arithmetic on encrypted integers, from Python.

Quick start::

    import encint
    ck = encint.ClientKey.generate()          # secret key (stays with you)
    encint.set_server_key(ck.server_key())    # evaluation key (for the server)
    a, b = ck.encrypt(-1234), ck.encrypt(567)
    assert ck.decrypt(a * b + 1) == -1234 * 567 + 1

Types:

- ``EncInt``: exact signed integers (results never wrap), Python operators,
  comparisons returning encrypted 0/1, ``select``/``min``/``max``;
- ``FheUint8`` ... ``FheUint128``, ``FheInt8`` ... ``FheInt128``, ``FheBool`` (any width:
  ``FheUint(12)``, ``FheInt(12)``; ``ck.encrypt(v, "u8")``), ``FheArray`` (``ck.encrypt(
  np_array, "u8")``), ``where``, ``dot`` and ``compile``: the typed family of the Rust
  facade (``encint::fhe``): fixed-width integers that wrap, each operation one circuit
  planned for its operands, with NumPy's integer semantics (see below and
  docs/PYTHON.md); ``FheValue.to_int()`` and ``FheUint8.from_int(e)`` convert between the
  two kinds;
- ``trace(fn, *args)`` runs a whole function as one circuit; ``cost(fn, widths)``
  gives its cost before any key exists;
- ``Program``/``ProcessorKeys``: the encrypted byte processor;
- ``FvKeys``/``FvBatch``: FV batches of NumPy arrays;
- ``FvBitsKeys``/``FvWord``: bit-sliced integers on FV (one operation on thousands of
  integers at once);
- ``set_progress``: progress bars (tqdm, when installed) for long operations.

``ClientKey.clear()`` is the clear mode of ``EncInt``: the same circuits evaluated on
plain digits (no security), for tests, prototypes and wide sweeps; for the typed family,
``encint.compile(fn, *types).run_clear(*values)`` runs a function's circuit on plain
values.

The typed family's semantics (NumPy's where they differ from Rust's / TFHE-rs'):

===========================  =============================================================
``+ - *``, ``-x``, square    modulo ``2**N`` (as ``np.uint8`` / ``np.int8``)
``x // y``                   floor division (Rust: truncating)
``x % y``                    the divisor's sign (Rust: the dividend's)
``MIN // -1``, ``MIN % -1``  ``MIN``, ``0``
``x // 0``, ``x % 0``        ``0``, ``0`` for an encrypted zero (TFHE-rs: all ones or
                             ``±1``, and ``x``); ``ZeroDivisionError`` for a clear zero
``<< k``, ``>> k``           shift by ``k mod N`` (``>>`` arithmetic when signed)
``rotate_left/right(k)``     rotation by ``k mod N``
``& | ^ ~``                  bitwise on the two's-complement pattern
``abs(x)``                   ``|x|`` modulo ``2**N`` (``abs(MIN) == MIN``)
comparisons                  an encrypted ``FheBool`` (no truth value: use ``select``)
``cast(ty)``                 truncation or zero/sign extension; to ``bool``: ``x != 0``
``"u1"``, ``FheUint(1)``     refused (``InvalidInputError``): the one-bit unsigned type is
                             ``bool``; the low bit is ``x & 1``
``"i1"``, ``FheInt(1)``      one bit, signed: ``-1`` and ``0`` (a cast keeps the low bit)
===========================  =============================================================

Clear operands must be values of the other operand's type; both operands of one
operation have one type. Clear NumPy arrays stand on either side of the operators,
elementwise (an ``FheArray`` results; a zero in a clear divisor array gives 0, as NumPy).

Errors derive from ``encint.Error`` (``InvalidInputError``, ``NoiseBudgetError``,
``FormatError``, ``KeyRoleError``, ``KeyMismatchError``, ``DecryptionError``,
``LimitError``, ``NoServerKeyError``, ``ProgramError``, ``FvError``, ``BackendError``).
"""

from __future__ import annotations

from . import _encint
from ._encint import (  # noqa: F401
    MAX_CIPHERTEXT_BYTES,
    MAX_DIGITS,
    PARAMETERS,
    ClientKey,
    DecryptionError,
    EncInt,
    Error,
    FormatError,
    FvBatch,
    FvBitsKeys,
    FvError,
    FvImages,
    FvInference,
    FvLogits,
    FvWeights,
    FvWord,
    BackendError,
    EncryptedImages,
    EncryptedLogits,
    EncryptedWeights,
    Inference,
    InvalidInputError,
    KeyMismatchError,
    KeyRoleError,
    LimitError,
    NoiseBudgetError,
    NoServerKeyError,
    ProcessorKeys,
    Program,
    PackingKey,
    ProgramError,
    PublicKey,
    ServerKey,
    Traced,
    calibrate,
    from_bytes,
    machine_profile,
    set_server_key,
    set_threads,
)
from .fv import FvKeys  # noqa: F401
from ._family import (  # noqa: F401
    Compiled,
    FheArray,
    FheBool,
    FheInt,
    FheInt8,
    FheInt16,
    FheInt32,
    FheInt64,
    FheInt128,
    FheUint,
    FheUint8,
    FheUint16,
    FheUint32,
    FheUint64,
    FheUint128,
    FheValue,
    compile,
    dot,
    where,
)
from ._family import trace_family as _trace_family
from ._progress import set_progress  # noqa: F401

__all__ = [
    "MAX_DIGITS", "MAX_CIPHERTEXT_BYTES", "PARAMETERS", "ClientKey", "ServerKey", "PublicKey", "PackingKey", "EncInt", "Traced",
    "Program", "ProcessorKeys", "FvKeys", "FvBatch", "FvBitsKeys", "FvWord", "set_server_key", "set_threads", "from_bytes",
    "machine_profile", "calibrate",
    "select", "min", "max", "bitwise_count", "trace", "cost", "set_progress",
    "Error", "InvalidInputError", "NoiseBudgetError", "FormatError", "KeyRoleError",
    "KeyMismatchError", "DecryptionError", "LimitError", "NoServerKeyError",
    "ProgramError", "FvError", "BackendError",
    "FheValue", "FheArray", "FheBool", "FheUint", "FheInt", "Compiled",
    "FheUint8", "FheUint16", "FheUint32", "FheUint64", "FheUint128",
    "FheInt8", "FheInt16", "FheInt32", "FheInt64", "FheInt128",
    "where", "dot", "compile",
    "Inference", "EncryptedImages", "EncryptedWeights", "EncryptedLogits",
    "FvInference", "FvImages", "FvWeights", "FvLogits",
]

_min, _max = min, max
_ENCRYPTED = (EncInt, Traced, FheValue)


def _either(method, builtin, a, b):
    """``a.method(b)`` or ``b.method(a)`` for the first encrypted operand, else ``builtin(a, b)``."""
    if isinstance(a, FheArray) or isinstance(b, FheArray):
        x, y = (a, b) if isinstance(a, FheArray) else (b, a)
        return getattr(x, "minimum" if method == "min" else "maximum")(y)
    if isinstance(a, _ENCRYPTED):
        return getattr(a, method)(b)
    if isinstance(b, _ENCRYPTED):
        return getattr(b, method)(a)
    return builtin(a, b)


def select(cond, a, b):
    """``a if cond else b`` without revealing ``cond`` (an encrypted 0 or 1).

    ``cond`` is an ``EncInt`` (e.g. ``x < y``), an ``FheBool`` (``cond.select(a, b)``) or
    an ``FheArray`` of booleans (``encint.where``) or a 1-bit ``FvWord`` (slot by slot);
    ``a`` and ``b`` are values of the same type or Python ints (not for ``FvWord``). Works
    on traced values too.
    """
    if isinstance(cond, Traced):
        return _encint._traced_select(cond, a, b)
    if isinstance(cond, (FheValue, FheArray)):
        return where(cond, a, b)
    return _encint.select(cond, a, b)


def min(a, b):  # noqa: A001 - mirrors the builtin for encrypted values
    """``min(a, b)`` of two encrypted values (or one encrypted value and an int)."""
    return _either("min", _min, a, b)


def max(a, b):  # noqa: A001 - mirrors the builtin for encrypted values
    """``max(a, b)`` of two encrypted values (or one encrypted value and an int)."""
    return _either("max", _max, a, b)


def bitwise_count(x):
    """The number of one bits of ``abs(x)`` for an encrypted value ``x`` (an ``FheUint32``),
    as NumPy's ``np.bitwise_count``; ``x.count_ones()`` counts those of the two's-complement
    pattern (Rust's and TFHE-rs' ``count_ones``), elementwise on arrays too.

    Example::

        x = encint.FheInt8.encrypt(-6, ck)  # pattern 0b11111010
        assert ck.decrypt(encint.bitwise_count(x)) == 2  # 6 = 0b110
        assert ck.decrypt(x.count_ones()) == 6
    """
    return x.bitwise_count()


def _record(fn, widths):
    tape = _encint.Tape(list(widths))
    out = fn(*tape.inputs())
    single = isinstance(out, Traced)
    outs = [out] if single else list(out)
    return tape, outs, single


def trace(fn, *args):
    """Runs ``fn(*args)`` as ONE circuit: independent operations share bootstrap batches.

    ``fn`` receives stand-ins (``Traced``) for the ``EncInt`` arguments and returns one
    of them or a tuple/list; it may use ``+ - * // % & | ^ ~``, unary ``-``, ``abs``,
    ``<< k`` and ``>> k`` (``k`` a Python int), comparisons,
    ``encint.min``/``max``/``select``, ``.square()``, ``.sign()`` and Python ints, but no
    ``if`` on encrypted values. The operators are exact with Python's semantics, like
    ``EncInt``'s (``//`` and ``%`` floor; ``x // 0`` by an encrypted zero gives the
    boolean layer's value instead of raising). Returns an ``EncInt`` or a tuple of them.
    A large circuit shows a progress bar (see ``set_progress``).

    With values and arrays of the typed family (``FheUint8``, ``FheArray``, ...) as
    arguments, ``fn`` is traced by ``encint.compile`` with the family's semantics instead.
    """
    if args and all(isinstance(a, (FheValue, FheArray)) for a in args):
        return _trace_family(fn, *args)
    for a in args:
        if not isinstance(a, EncInt):
            raise TypeError(f"trace arguments must be EncInt, not {type(a).__name__}")
    tape, outs, single = _record(fn, [a.width for a in args])
    results = tape.run(list(args), outs)
    return results[0] if single else tuple(results)


def cost(fn, widths):
    """The cost of ``trace(fn, ...)`` on inputs of ``widths`` digits, without any key.

    Returns a dict: ``bootstraps``, ``blind_rotations``, ``packing_keyswitches``,
    ``depth`` (bootstrap levels on the longest path), ``width`` (largest level),
    ``max_qweight`` and ``nodes``.
    """
    tape, outs, _ = _record(fn, widths)
    return tape.cost(outs)
