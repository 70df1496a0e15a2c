"""An encrypted dot product: encrypted features times public integer weights, all products
and the sum in one circuit (traced), plus an encrypted-by-encrypted product."""

import encint

features = [13, -7, 22, 5, -18]
weights = [3, 11, -2, 7, 1]

ck = encint.ClientKey.generate()
encint.set_server_key(ck.server_key())

xs = [ck.encrypt(v, 6) for v in features]


def dot(*xs):
    terms = [w * x for w, x in zip(weights, xs)]
    return sum(terms[1:], terms[0])


print("cost:", encint.cost(dot, [6] * len(xs)))
y = encint.trace(dot, *xs)
expected = sum(w * v for w, v in zip(weights, features))
print("dot product:", ck.decrypt(y), "expected", expected)
assert ck.decrypt(y) == expected

# Encrypted weights too (exact products: no overflow).
ws = [ck.encrypt(w, 5) for w in weights[:2]]
z = encint.trace(lambda a, b, c, d: a * c + b * d, xs[0], xs[1], ws[0], ws[1])
assert ck.decrypt(z) == features[0] * weights[0] + features[1] * weights[1]
print("encrypted x encrypted:", ck.decrypt(z))
