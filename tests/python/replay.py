"""What the randomised tests share: the seed of a run, replayable from an environment
variable, and the noise budget every circuit they draw must stay within."""

import os
import random

# The quadratic weight a bootstrap input may carry on the default parameter set
# (docs/ISA.md): a circuit past it runs in the clear (the clear executor does not check
# it) but a server refuses it.
BUDGET = 25


def seed(var):
    """This run's seed: the environment variable `var`, or one drawn now; printed as
    `var=N` (pytest shows it with a failure)."""
    s = os.environ.get(var)
    s = int(s) if s else random.randrange(2**63)
    print(f"{var}={s}")
    return s
