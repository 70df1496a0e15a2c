"""An FV batch: a NumPy array in the slots of one ciphertext, slot-wise + and *."""

import numpy as np

import encint

keys = encint.FvKeys("128-8192")  # 128-bit parameters (HomomorphicEncryption.org)
t = keys.plaintext_modulus
a = np.arange(1, 1001, dtype=np.int64)
b = (a * 7) % 100

ea, eb = keys.encrypt(a), keys.encrypt(b)
s = keys.decrypt(ea + eb, len(a))
p = keys.decrypt(ea * eb, len(a))
print("slots:", keys.slots, "t:", t)
print("a + b:", s[:5], "...")
print("a * b:", p[:5], "...")
assert (s == (a + b) % t).all()
assert (p == (a * b) % t).all()
