"""An ERC20-style token transfer on encrypted balances (the example TFHE-rs ships): the
server moves `amount` from one balance to another only when the sender has enough, without
learning the balances, the amount or whether the transfer happened. One compiled circuit
per transfer; checked against plain integers.

    python examples/python/erc20.py
"""

import random
import time

import encint


@encint.compile("u64", "u64", "u64")
def transfer(sender, receiver, amount):
    """The balances after the transfer: unchanged when the sender lacks the funds."""
    enough = sender >= amount
    return (
        encint.where(enough, sender - amount, sender),
        encint.where(enough, receiver + amount, receiver),
    )


@encint.compile("u64", "u64", "u64")
def transfer_overflowing(sender, receiver, amount):
    """The same with Rust's overflow flag: a borrow means the funds are short."""
    rest, short = sender.overflowing_sub(amount)
    return encint.where(short, sender, rest), encint.where(short, receiver, receiver + amount)


def plain(sender, receiver, amount):
    if sender >= amount:
        return sender - amount, receiver + amount
    return sender, receiver


def main():
    ck = encint.ClientKey.generate()
    encint.set_server_key(ck.server_key())
    rng = random.Random(20)
    balances = [rng.randrange(1 << 20), rng.randrange(1 << 20)]
    for name, f in [("select", transfer), ("overflowing", transfer_overflowing)]:
        cost = f.cost()
        print(f"{name}: {cost['bootstraps']} bootstraps, depth {cost['depth']}")
    for step in range(3):
        # The last transfer asks for more than the sender holds.
        amount = rng.randrange(balances[0] + 1) if step < 2 else balances[0] + 1
        a, b, m = (encint.FheUint64.encrypt(v, ck) for v in (*balances, amount))
        f = transfer if step % 2 == 0 else transfer_overflowing
        start = time.perf_counter()
        new_a, new_b = f(a, b, m)
        seconds = time.perf_counter() - start
        got = (new_a.decrypt(ck), new_b.decrypt(ck))
        want = plain(*balances, amount)
        print(f"transfer {amount}: {balances} -> {list(got)} ({seconds:.2f} s)")
        assert got == want, (got, want)
        balances = list(got)


if __name__ == "__main__":
    main()
