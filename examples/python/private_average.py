"""A private average of salaries: the server sums encrypted salaries in one traced circuit
and divides by the head count; only the client key holder sees the result."""

import encint

salaries = [52_000, 61_500, 47_250, 88_000, 73_100, 39_900]

ck = encint.ClientKey.generate()  # client: secret key
sk = ck.server_key()  # sent to the server

# Client: encrypt (18 digits hold up to 262143).
encrypted = [ck.encrypt(s, 18) for s in salaries]

# Server: one circuit for the sum (a chain of additions), then the division.
encint.set_server_key(sk)
total = encint.trace(lambda *xs: sum(xs[1:], xs[0]), *encrypted)
average = total // len(salaries)

# Client: decrypt.
print("sum     ", ck.decrypt(total))
print("average ", ck.decrypt(average))
assert ck.decrypt(total) == sum(salaries)
assert ck.decrypt(average) == sum(salaries) // len(salaries)
