"""A private average of salaries: the server sums encrypted salaries in one traced circuit;
only the client key holder sees the sum, and divides it by the (public) head count."""

import encint

salaries = [52_000, 61_500, 47_250, 88_000, 73_100, 39_900]

ck = encint.ClientKey.generate()  # client: secret key
sk = ck.server_key()  # sent to the server

# Client: encrypt (18 digits hold up to 262143).
encrypted = [ck.encrypt(s, 18) for s in salaries]

# Server: one circuit for the sum (a chain of additions). (`total // len(salaries)` would
# divide on the server too, at the cost of a division circuit.)
encint.set_server_key(sk)
total = encint.trace(lambda *xs: sum(xs[1:], xs[0]), *encrypted)

# Client: decrypt, divide by the public count.
s = ck.decrypt(total)
print("sum     ", s)
print("average ", s / len(salaries))
assert s == sum(salaries)
