"""Importing this module makes numba ready to run compiled code: the fork server imports it.

numba sets up its compiler targets at the first call of any compiled function
in a process, about a fifth of a second. Done once in the fork server
(``tablebase.fork_server``), it is done for every worker forked from it.
"""

from __future__ import annotations

import numba


@numba.njit(cache=True)
def _first_call(x: int) -> int:
    return x + 1


_first_call(1)
