"""Heavy imports with the garbage collector kept out of them.

Importing Dask, numba, pyarrow and the solvers makes about 150,000 objects
that live as long as the process. While they are made, the collector runs
again and again over the ones made before: a sixth of the time the imports
take. Afterwards each full collection walks them all once more, about 50 ms,
and a Dask cluster's start ran one or two (75 ms of its 100). Python's own advice for a process that
forks is the same: freeze what the parent imported (``gc.freeze``), so that
collections in the children do not touch those objects' pages either.
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
