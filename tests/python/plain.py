"""The documented semantics of the typed family (docs/PYTHON.md) on plain ints, shared by
the randomised tests: a type's width and bounds, a cast, a rotation."""


def parse(ty):
    """`(bits, signed)` of a type name: `"u8"`, `"i16"`, `"bool"` (one unsigned bit)."""
    return (1, False) if ty == "bool" else (int(ty[1:]), ty[0] == "i")


def bounds(ty):
    """The least and the greatest value of `ty`."""
    bits, signed = parse(ty)
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def wrap(v, ty):
    """A cast of the int `v` to `ty`: its value modulo `2**bits` (`bool`: `v != 0`)."""
    if ty == "bool":
        return v != 0
    bits, signed = parse(ty)
    u = v % (1 << bits)
    return u - (1 << bits) if signed and u >= 1 << (bits - 1) else u


def rotate(v, k, ty, left):
    """`v` of `ty` rotated by `k` (modulo the width), left or right."""
    bits, _ = parse(ty)
    u, k = v % (1 << bits), k % bits
    if not left:
        k = (bits - k) % bits
    return wrap((u << k) | (u >> (bits - k)), ty)
