"""The Dask cluster a build runs on: a running scheduler's, or a local one started for the build.

A local cluster's workers are processes forked from the fork server
(``fork_server.py``) with the build's modules imported, or, for a small job,
threads of the build command's own process. Everything it listens on is on
loopback, its HTTP servers included, with Dask's pages on them only if the
build asks for the dashboard (``_local_settings``).
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import dask
from distributed import Client, LocalCluster
from distributed.system import MEMORY_LIMIT

from tablebase.build.cluster import allocator, fork_server, shared_values
from tablebase.build.cluster.memory_plan import Workers, local_worker_limit, values_on_disk
from tablebase.errors import TablebaseError

WAIT_FOR_WORKERS = 60.0  # seconds a build waits for a scheduler's first worker (containers start together)
HANDSHAKE_TRIES = 3  # a client's start that fails inside Dask's handshake is tried again, so many times in all
LOOPBACK = "127.0.0.1:0"  # where a local cluster's HTTP servers listen: this machine only, on a free port


def local_workers(workers: int | None = None) -> int:
    """How many worker processes a local cluster starts: as asked, or two (one on a one-core machine)."""
    return workers or min(2, os.cpu_count() or 1)


@contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None, shared_bytes: int = 0,
                small: bool = False, dashboard: bool = False) -> Iterator[Client]:
    """A client of the given scheduler, or of a LocalCluster started for the run.

    The local workers are processes, forked from the fork server
    (``fork_server.py``) with the build's modules imported; a
    ``small`` job's workers are threads of this process instead, which start
    at once, where processes, forked or not, take longer to start than such a
    job's whole work. ``shared_bytes``: the most values the local workers
    will share in memory (build/cluster/memory_plan.py plans them once per machine); values
    too large for memory are mapped from disk, and then Dask does not pause or
    kill a worker for its resident memory, which counts the mapped pages the
    system may drop at any time (the memory plan bounds the rest).
    ``dashboard``: serve a local cluster's dashboard, on loopback
    (``dashboard_url`` says where).
    """
    if scheduler:
        yield from _remote_client(scheduler)
        return
    n = local_workers(workers)
    with dask.config.set(_local_settings(shared_bytes, small, dashboard)):
        if shared_bytes and values_on_disk(MEMORY_LIMIT, shared_bytes):
            shared_bytes = 0  # not in memory: each worker's limit is its share of the machine
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=not small,
            # Dask's own defaults listen on every interface: the dashboard at ":0", and the
            # workers' HTTP servers when the workers are threads (their addresses are in memory).
            scheduler_kwargs={"dashboard": dashboard, "dashboard_address": LOOPBACK},
            worker_dashboard_address=LOOPBACK,
            silence_logs=logging.CRITICAL,
            memory_limit=local_worker_limit(MEMORY_LIMIT, n, shared_bytes),
            # A forked worker starts with the environment the fork server had; a spawned one
            # would have this process's.
            **({} if small else {"env": dict(os.environ)}),
        )
    with cluster, Client(cluster) as client:
        yield client


def _remote_client(scheduler: str) -> Iterator[Client]:
    """A client of a running scheduler that has at least one worker, or a one-line error."""
    client = _connect(scheduler)
    # The client's reconnecting, and failing to, is logged with tracebacks: the
    # build says in one line what happened instead.
    quiet = logging.getLogger("distributed.client")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        with client:
            try:  # a scheduler without workers would be given no task at all
                client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS)
            except TimeoutError:
                raise TablebaseError(f"no Dask worker joined the scheduler at {scheduler} within "
                                     f"{WAIT_FOR_WORKERS:.0f} s; start some (dask worker {scheduler})") from None
            yield client
    finally:
        quiet.setLevel(level)


class _ClosedIfFailed(Client):
    """A client that closes itself when its start fails, while its event loop still runs.

    Else the failed client is closed when Python collects it, at the latest as the command exits,
    and waits for a loop that has stopped until Dask's timeout (20 s) runs out.
    """

    def start(self, **kwargs: Any) -> None:
        try:
            super().start(**kwargs)
        except Exception:
            self.close()
            raise


def _connect(scheduler: str) -> Client:
    """A started client of ``scheduler``, or a one-line error.

    A refused or timed-out connection is said at once. Any other failure is of Dask's handshake
    itself (its client asserts that the scheduler's first reply is one message, which a busy scheduler's
    has been seen to fail): it is tried again, and said in one line if it keeps failing.
    """
    for _ in range(HANDSHAKE_TRIES):
        try:
            return _ClosedIfFailed(scheduler, timeout="10s")
        except (OSError, TimeoutError) as e:
            raise TablebaseError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
        except Exception as e:  # noqa: BLE001 - whatever Dask's client start raised, said in one line below
            failure = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
    raise TablebaseError(f"cannot reach the Dask scheduler at {scheduler}: Dask's handshake failed "
                         f"{HANDSHAKE_TRIES} times ({failure})")


def _local_settings(shared_bytes: int, small: bool, dashboard: bool) -> dict[str, Any]:
    """Dask's configuration for a local cluster started for one run."""
    settings: dict[str, Any] = {
        "distributed.scheduler.worker-saturation": "inf",
        # The statistical profiler samples each worker's thread many times a second; a
        # build has no use for it and its tasks pay for every sample.
        "distributed.worker.profile.enabled": False,
    }
    if shared_bytes and values_on_disk(MEMORY_LIMIT, shared_bytes):
        # Mapped values count in a worker's resident memory, yet the system may drop those pages at any time.
        settings["distributed.worker.memory.pause"] = False
        settings["distributed.worker.memory.terminate"] = False
    if not dashboard:  # Dask starts its HTTP servers in any case: with no pages on them, they show nothing
        settings["distributed.scheduler.http.routes"] = []
        settings["distributed.worker.http.routes"] = []
    if not small:
        settings["distributed.worker.multiprocessing-method"] = fork_server.start()
    return settings


def dashboard_url(client: Client) -> str:
    """Where the dashboard of the local cluster of ``client`` answers: on loopback, this machine only."""
    return f"http://127.0.0.1:{client.cluster.scheduler.http_server.port}/status"


def least_limit(workers: dict[str, Any]) -> int | None:
    """The smallest memory limit of the workers (``scheduler_info()["workers"]``); None if any has none."""
    limits = [w.get("memory_limit") or 0 for w in workers.values()]
    return min(limits) if limits and min(limits) > 0 else None


def cluster_workers(client: Client, disk: str | None = None, keep: str | None = None) -> Workers:
    """The workers' smallest memory limit, the most on one machine, and the least shared memory and free
    space on the disk that holds ``disk`` (a folder for values too large for memory) any of them has,
    once what builds that were killed left there is removed, but the values of the build named ``keep``."""
    info = client.scheduler_info()["workers"]
    if not info:  # a nanny restarting the workers it killed leaves none for a moment
        try:
            client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS)
        except TimeoutError:
            pass  # the build says in one line that there are none
        info = client.scheduler_info()["workers"]
    hosts = Counter(w.get("host") for w in info.values())
    rooms = [r for r in client.run(shared_values.clear_room, disk, keep, on_error="return").values()
             if isinstance(r, tuple)]
    rests = [r for r in client.run(allocator.held_at_rest, on_error="return").values() if isinstance(r, int)]
    return Workers(limit=least_limit(info),
                   per_machine=max(hosts.values(), default=1),
                   shared_room=min((r[0] for r in rooms), default=0),
                   addresses=tuple(sorted(info)),
                   disk_room=min((r[1] for r in rooms), default=0),
                   machines=max(len(hosts), 1),
                   at_rest=max(rests, default=0),
                   kept_parts=max((r[2] for r in rooms), default=0))
