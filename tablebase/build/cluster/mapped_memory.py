"""Values mapped from a machine's disk, allowed for in Dask's memory limits while a build maps them.

Dask measures a worker by its process's resident set: the worker pauses at 80%
of its ``--memory-limit`` and its nanny restarts it at 95%. A process's
resident set holds every page of a mapped file it has touched, so a worker
whose values are mapped from disk (values larger than the workers' limits,
build/cluster/shared_values.py) reaches its limit by reading them, although those pages are
the page cache's, which the system takes back when it needs the memory: Chomp
15x15's values (296 MiB) had a worker limited to 600 MiB paused within
a minute and restarted by the driver (``placing.restart_paused``) every two or
three minutes, its tasks computed again each time.

So for the run each nanny's and each worker's limit is raised so that the
threshold that acts on it (a worker's pause, a nanny's restart) rises by the
values' bytes: by the bytes divided by that fraction, since every page of the
values may be resident at once (Chomp 16x16's 1.12 GiB, raised by only their
bytes, left 600 MiB workers 250 MiB of their own before the pause, and all
three paused). The limits are set back when the run ends, however it ends.
What the memory plan counts (build/cluster/memory_plan.py) is still held to the limit the
worker was given; only the mapped pages are allowed for. The raise is a Dask plugin of the
nannies and of the workers: a worker started meanwhile (its nanny restarting
it) is raised as it joins, and unregistering the plugin sets each one back.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from distributed import Client
from distributed.diagnostics.plugin import NannyPlugin, WorkerPlugin

RAISED = "_tablebase_raised"  # on each nanny and worker: the bytes each plugin raised its limit by


@contextmanager
def mapped_values_allowed(client: Client, run: str, nbytes: int) -> Iterator[None]:
    """Every worker's and nanny's memory limit raised by ``nbytes`` while the block runs (nothing if 0)."""
    if not nbytes:
        yield
        return
    name = f"mapped-values-{run}"
    for plugin in (NannyAllowance(name, nbytes), WorkerAllowance(name, nbytes)):
        # The scheduler keeps a plugin before it sends it out: a worker lost meanwhile (a reset connection
        # fails the call) is raised as it joins again, like any other.
        with suppress(OSError):
            client.register_plugin(plugin, name=name)
    try:
        yield
    finally:
        if client.status == "running":  # not after the scheduler was lost: its workers are restarted anyway
            for nanny in (False, True):  # each set back even if the other cannot be
                with suppress(OSError, TimeoutError, ValueError):
                    client.unregister_worker_plugin(name, nanny=nanny)


class WorkerAllowance(WorkerPlugin):
    """A worker's memory limit raised while the plugin is registered, its pause by ``nbytes``."""

    def __init__(self, name: str, nbytes: int) -> None:
        self.name, self.nbytes = name, nbytes

    def setup(self, worker: Any) -> None:
        raised_limit(worker, self.name, allowance(self.nbytes, worker.memory_manager.memory_pause_fraction))

    def teardown(self, worker: Any) -> None:
        raised_limit(worker, self.name, 0)


class NannyAllowance(NannyPlugin):
    """A nanny's memory limit raised while the plugin is registered, the point past which it restarts its
    worker by ``nbytes``."""

    def __init__(self, name: str, nbytes: int) -> None:
        self.name, self.nbytes = name, nbytes

    def setup(self, nanny: Any) -> None:
        raised_limit(nanny, self.name, allowance(self.nbytes, nanny.memory_manager.memory_terminate_fraction))

    def teardown(self, nanny: Any) -> None:
        raised_limit(nanny, self.name, 0)


def allowance(nbytes: int, fraction: float | bool | None) -> int:
    """What a limit is raised by so that its threshold at ``fraction`` of it rises by ``nbytes``."""
    return math.ceil(nbytes / fraction) if fraction else nbytes


def raised_limit(server: Any, name: str, nbytes: int) -> int | None:
    """A nanny's or a worker's memory limit with the raise ``name`` set to ``nbytes`` (0: taken back), the
    others kept; None for one without a limit."""
    manager = server.memory_manager
    if not manager.memory_limit:
        return None
    raised = server.__dict__.setdefault(RAISED, {})
    base = manager.memory_limit - sum(raised.values())
    if nbytes:
        raised[name] = nbytes
    else:
        raised.pop(name, None)
    manager.memory_limit = base + sum(raised.values())
    return manager.memory_limit
