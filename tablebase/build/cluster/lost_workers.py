"""Solving tasks left waiting for a worker that is gone, placed on the workers left.

The driver deals each step's tasks to the workers in turn, each kept to its
worker loosely, so that they do not all run where their arguments are; a task
whose worker went while no other was running would wait for ever
(``place_stranded``). A worker paused for memory is made to hand back what its
allocators keep (``free_paused``), and restarted if it stays paused
(``restart_paused``), so that its tasks go on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from distributed import Client, Future, wait
from distributed.client import FuturesCancelledError

from tablebase.build.cluster import allocator
from tablebase.spelling import counted

PAUSED_PATIENCE = 60.0  # seconds a worker may stay paused for memory before it is restarted


def place_stranded(client: Client, run: str) -> list[str]:
    """The tasks of a run (their keys end with it) that were waiting for a worker that is gone, now placed on
    any worker: those the driver waits for, and those they wait for (results lost with the worker, computed
    again).

    Dask moves a loosely kept task to another worker only if one is running when its own goes. If none is
    (the only worker restarted by its nanny, the others paused for memory), the task waits in ``no-worker``
    for a worker at the old address, which a restarted worker never has (dask/distributed#7346); lifting
    its restriction lets the scheduler place it on any running worker."""

    # Defined in here, so that it travels by value: the scheduler need not have this package installed.
    def lift(run: str, dask_scheduler: Any = None) -> list[str]:
        """On the scheduler: lift the restriction of tasks in ``no-worker`` whose workers are all gone."""
        import time

        scheduler = dask_scheduler
        if not scheduler.running:
            return []  # nothing to place them on yet: asked again later
        stranded = []
        for task in list(scheduler.unrunnable):
            if (str(task.key).endswith(run) and task.loose_restrictions
                    and not (task.worker_restrictions or set()) & set(scheduler.workers)):
                stranded.append(task.key)
        if stranded:
            scheduler.set_restrictions({key: None for key in stranded})
            scheduler.transitions({key: "processing" for key in stranded}, stimulus_id=f"placed-again-{time.time()}")
        return stranded

    return client.run_on_scheduler(lift, run)


def free_paused(client: Client) -> list[str]:
    """The workers paused for memory, each made to hand back the memory its allocators keep: a paused
    worker runs no task until its memory falls, and what a solver's heap keeps does not fall by itself."""
    paused = [address for address, w in client.scheduler_info()["workers"].items() if w.get("status") == "paused"]
    if paused:
        client.run(allocator.hand_back_freed_memory, workers=paused, on_error="ignore")
    return paused


def restart_paused(client: Client, paused_since: dict[str, float], now: float) -> list[str]:
    """Restart the workers paused for longer than ``PAUSED_PATIENCE`` (``paused_since``: when each paused
    worker was first seen paused, updated here); their tasks go to the others, or to them once back."""
    paused = set(free_paused(client))
    for address in set(paused_since) - paused:
        del paused_since[address]
    for address in paused:
        paused_since.setdefault(address, now)
    stuck = sorted(a for a in paused if now - paused_since[a] >= PAUSED_PATIENCE)
    if stuck:
        client.restart_workers(stuck, raise_for_error=False)
        for address in stuck:
            del paused_since[address]
    return stuck


def restarted_note(stuck: list[str]) -> str:
    """What the progress line says of workers restarted for staying paused."""
    return (f"{len(stuck)} worker{'s' if len(stuck) > 1 else ''} paused for memory for {PAUSED_PATIENCE:.0f} s "
            "restarted; smaller --partition-rows keep a worker under its limit")


def wait_watching(client: Client, futures: list, say: Callable[[str], None], every: float = 5.0) -> None:
    """Wait for the futures to finish (or fail); every ``every`` seconds without that, free the workers paused
    for memory, and restart those that stay paused (``restart_paused``)."""
    paused_since: dict[str, float] = {}
    while True:
        try:
            wait(futures, timeout=every)
            return
        except TimeoutError:  # an OSError too: caught first
            pass
        except (FuturesCancelledError, OSError):
            return  # cancelled, or the scheduler lost: each future's result says why, in one line
        try:
            stuck = restart_paused(client, paused_since, time.monotonic())
        except OSError:  # TimeoutError too: the scheduler out of reach, the results say what became of the tasks
            continue
        if stuck:
            say(restarted_note(stuck))


def finishing(client: Client, pending: dict[str, Future], run: str, say: Callable[[str], None],
              every: float = 5.0) -> Iterator[Future]:
    """The solving tasks of a run as they finish, while ``pending`` (which the caller empties) holds any;
    after ``every`` seconds without one, any left waiting for a worker that is gone are placed on the
    workers left, and workers paused for memory freed or restarted."""
    paused_since: dict[str, float] = {}
    while pending:
        try:
            done, _ = wait(list(pending.values()), timeout=every, return_when="FIRST_COMPLETED")
        except FuturesCancelledError:  # the scheduler lost: each task's record says so in one line
            yield from list(pending.values())
            return
        except TimeoutError:
            try:
                stranded = place_stranded(client, run)
                stuck = restart_paused(client, paused_since, time.monotonic())
            except (OSError, TimeoutError):
                continue  # the scheduler out of reach: the next wait says what became of the tasks
            if stranded:
                say(f"{counted(len(stranded), 'task')} of a worker that is gone placed on the others")
            if stuck:
                say(restarted_note(stuck))
            continue
        yield from sorted(done, key=lambda future: future.status != "error")  # a failure first: it says the most
