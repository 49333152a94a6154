"""Values mapped from a machine's disk, allowed for in Dask's memory limits while a build maps them.

Dask pauses and restarts a worker by its resident set, which counts every page
of a mapped file the worker has read, though those pages are the page cache's
to take back (docs/scale.md, "Where the values live"). So for the run each
worker's and each nanny's limit is raised so that the threshold acting on it
rises by the values' bytes, and set back when the run ends, however it ends.
What the memory plan counts is still held to the limit the worker was given.
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
    """Every worker's and nanny's memory limit raised by ``nbytes`` while the block runs (nothing if 0).

    The raise is a plugin of the nannies and of the workers: a worker started
    meanwhile (its nanny restarting it) is raised as it joins, and
    unregistering the plugin sets each one back.
    """
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
    """What a limit is raised by so that its threshold at ``fraction`` of it rises by ``nbytes``.

    Every page of the values may be resident at once: a limit raised by the
    bytes alone would leave the worker less than its own share before the pause.
    """
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
