"""What the fork server imports before it forks the local cluster's workers (``build/cluster/fork_server.py``).

Dask, the worker tasks with numpy, numba, pyarrow and the solvers, and numba
made ready to run compiled code: numba sets up its compiler targets at the
first call of any compiled function in a process, and done here it is done
for every worker forked from the server.
"""

from __future__ import annotations

from tablebase.build.cluster.imports import long_lived

with long_lived():
    import distributed  # noqa: F401
    import numba

    import tablebase.build.tasks  # noqa: F401

    @numba.njit(cache=True)
    def _first_call(x: int) -> int:
        return x + 1

    _first_call(1)
