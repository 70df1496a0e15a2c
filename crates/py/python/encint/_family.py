"""The typed family's Python classes: one per type, all subclasses of the native
``FheValue`` (which holds the Rust facade's ``encint::fhe::FheValue``)."""

from __future__ import annotations

from . import _encint
from ._encint import Compiled, FheArray, FheValue

_CLASSES: dict = {}


def _if_then_zero(self, a):
    """``a if self else 0`` for an ``FheBool`` ``self`` (TFHE-rs' ``if_then_zero``)."""
    return self.select(a, 0)


def _make(name: str, ty: str, doc: str):
    # ``if_then_else`` is TFHE-rs' name of ``select``: the same method; ``if_then_zero``
    # is ``select`` with a zero branch.
    attrs = {
        "_type": ty,
        "__doc__": doc,
        "__module__": "encint",
        "if_then_else": FheValue.select,
        "if_then_zero": _if_then_zero,
    }
    cls = type(name, (FheValue,), attrs)
    _CLASSES[ty] = cls
    return cls


def FheUint(bits: int):  # noqa: N802 - a class factory named like the Rust type
    """The class of ``bits``-bit unsigned values (2..=128), e.g. ``FheUint(12)``.

    ``FheUint(1)`` raises ``InvalidInputError``: the one-bit unsigned type is ``FheBool``,
    whose casts give ``x != 0`` rather than the low bit (which is ``x & 1``)."""
    return _class_of(f"u{int(bits)}")


def FheInt(bits: int):  # noqa: N802 - a class factory named like the Rust type
    """The class of ``bits``-bit signed values (1..=128), e.g. ``FheInt(12)``; ``FheInt(1)``
    holds -1 and 0."""
    return _class_of(f"i{int(bits)}")


def _class_of(ty: str):
    cls = _CLASSES.get(ty)
    if cls is None:
        # The native parser refuses "u1" and widths outside 1..=128.
        ty = _encint._type_name(ty)
        if ty in _CLASSES:
            return _CLASSES[ty]
        bits = int(ty[1:])
        signed = ty[0] == "i"
        kind = "signed" if signed else "unsigned"
        name = f"{'FheInt' if signed else 'FheUint'}{bits}"
        cls = _make(name, ty, f"An encrypted {bits}-bit {kind} integer (wrapping).")
    return cls


def _wrap(value):
    """A bare ``FheValue`` as an instance of its type's class."""
    return _class_of(value.type)(value)


FheBool = _make("FheBool", "bool", "An encrypted boolean (comparisons return it; ``select``).")
FheUint8, FheUint16, FheUint32, FheUint64, FheUint128 = (FheUint(n) for n in (8, 16, 32, 64, 128))
FheInt8, FheInt16, FheInt32, FheInt64, FheInt128 = (FheInt(n) for n in (8, 16, 32, 64, 128))

_encint._set_family_wrapper(_wrap)


def where(cond, a, b):
    """Elementwise ``a if cond else b`` (NumPy's ``where``) for an ``FheArray`` of booleans,
    or ``cond.select(a, b)`` for one ``FheBool``; one circuit."""
    if isinstance(cond, FheArray):
        return _encint._where(cond, a, b)
    if isinstance(cond, FheValue):
        return cond.select(a, b)
    raise TypeError(f"where takes an encrypted condition, not {type(cond).__name__}")


def dot(a, b):
    """``sum(a[i] * b[i])`` of two ``FheArray`` vectors (wrapping), one circuit."""
    return a.dot(b)


def _layout(t):
    if isinstance(t, FheValue):
        return t.type
    if isinstance(t, FheArray):
        return (t.type, tuple(t.shape))
    if isinstance(t, tuple):
        return (t[0], tuple(t[1]))
    return t


def compile(*args):  # noqa: A001 - mirrors the Rust facade's `compile`
    """Traces a function of values and arrays of the family into ONE circuit.

    ``compile(fn, *types)`` or, as a decorator, ``@compile(*types)``; each type is a name
    (``"u8"``), a class (``encint.FheUint8``) or ``(type, shape)`` for an array. The
    function is called once with traced stand-ins (operators, methods, ``where``, array
    calls; no ``if`` on encrypted values) and returns a value, an array or a tuple of
    them. The result's ``cost()`` is known before any key exists; ``run(*args)`` (or a
    call) runs the circuit on ciphertexts.
    """
    if args and callable(args[0]) and not isinstance(args[0], type):
        fn, types = args[0], args[1:]
        return _encint._compile(fn, [_layout(t) for t in types])

    def decorate(fn):
        return _encint._compile(fn, [_layout(t) for t in args])

    return decorate


def trace_family(fn, *args):
    """``fn(*args)`` as one circuit for values and arrays of the family."""
    return _encint._compile(fn, [_layout(a) for a in args]).run(*args)


def is_family(x) -> bool:
    return isinstance(x, (FheValue, FheArray))


__all__ = [
    "FheValue", "FheArray", "FheBool", "FheUint", "FheInt", "Compiled",
    "FheUint8", "FheUint16", "FheUint32", "FheUint64", "FheUint128",
    "FheInt8", "FheInt16", "FheInt32", "FheInt64", "FheInt128",
    "where", "dot", "compile",
]
