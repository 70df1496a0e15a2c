"""Progress bars of long operations (tqdm when installed, silently none otherwise).

The native module calls the factory set here with ``(description, total)`` when an
operation starts that is long enough (a circuit of at least ``min_bootstraps``
bootstraps, key generation); it calls ``bar.update(n)`` at each level boundary (``n``
bootstraps done, the GIL taken only there) and ``bar.close()`` at the end.
"""

from __future__ import annotations

from . import _encint

#: Circuits with fewer bootstraps run without a bar (they take at most a few seconds).
DEFAULT_MIN_BOOTSTRAPS = 500


def tqdm_bar(description: str, total: int):
    """The default factory: a tqdm bar (``None`` if tqdm is not installed)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    unit = "step" if description.startswith("generating") else "bootstrap"
    try:
        # Shown only once the operation has taken half a second (tqdm >= 4.58).
        return tqdm(total=total, desc=description, unit=unit, leave=False, delay=0.5)
    except TypeError:
        return tqdm(total=total, desc=description, unit=unit, leave=False)


def set_progress(enabled=True, min_bootstraps: int = DEFAULT_MIN_BOOTSTRAPS) -> None:
    """Turns progress bars of long operations on or off.

    ``enabled`` is ``True`` (tqdm bars, when tqdm is installed), ``False`` (none), or a
    callable ``factory(description, total)`` returning an object with ``update(n)`` and
    ``close()`` (or ``None`` for no bar). A circuit gets a bar when it has at least
    ``min_bootstraps`` bootstraps; key generation always does. While a bar is shown, the
    run checks for Ctrl-C (``KeyboardInterrupt``) at each level boundary; an exception
    raised by the bar stops the run and is raised by the operation.
    """
    if isinstance(min_bootstraps, bool) or not isinstance(min_bootstraps, int) or min_bootstraps < 0:
        raise ValueError("min_bootstraps must be a non-negative int")
    if enabled is True:
        factory = tqdm_bar
    elif enabled is False or enabled is None:
        factory = None
    elif callable(enabled):
        factory = enabled
    else:
        raise TypeError("enabled must be True, False or a callable factory(description, total)")
    _encint._set_progress(factory, min_bootstraps)


set_progress(True)
