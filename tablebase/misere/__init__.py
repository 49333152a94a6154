"""Misère play of heap games: the misère quotients of octal games, and Conway's genus symbols (docs/misere.md).

>>> from tablebase.misere import misere_quotient
>>> q = misere_quotient("0.77", 6)   # Kayles, heaps 0..6
>>> q.outcome((1, 1)), q.outcome((1,))
('N', 'P')

``misere_quotient`` grows the quotient heap by heap (``quotient.py``), each candidate proved by a finite
check (``check.py``) and reduced (``monoid.py``); a sum is answered by multiplying its heaps' elements.
``grown_quotient`` keeps what was found where a heap is refused, as an octal table keeps it (``stored.py``).
"""

from tablebase.misere.quotient import (
    DEFAULT_MAX_ORDER,
    MisereQuotient,
    QuotientTooLarge,
    grown_quotient,
    heap_options,
    misere_quotient,
)

__all__ = ["DEFAULT_MAX_ORDER", "MisereQuotient", "QuotientTooLarge", "grown_quotient", "heap_options",
           "misere_quotient"]
