"""Heavy imports with the garbage collector kept out of them.

Importing Dask, numba, pyarrow and the solvers makes a great many objects
that live as long as the process: the collector would walk them over and
over while they are made, and once more in every full collection after.
Python's own advice for a process that forks is the same: freeze what the
parent imported (``gc.freeze``), so that collections in the children do not
touch those objects' pages either.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def long_lived() -> Iterator[None]:
    """Run the block with the collector off, then keep everything alive at its end out of later collections.

    Reference counting still frees what is let go of; only cycles among the
    frozen objects would outlive their use.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
