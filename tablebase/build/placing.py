"""Solving tasks left waiting for a worker that is gone, placed on the workers left.

The driver deals each step's tasks to the workers in turn, each task kept to
its worker loosely (any worker may take it if that one is gone), so that they
do not all run where their arguments are. Dask moves such a task to another
worker only if one is running when its own goes. If none is (the only worker
restarted by its nanny, the others paused for memory), the task waits in
``no-worker`` for a worker at the old address, which a restarted worker never
has (dask/distributed#7346): the build would wait for ever. ``place_stranded``
finds such tasks and lifts their restriction, so that the scheduler places
them on any running worker.
"""

from __future__ import annotations

from typing import Any

from distributed import Client


def place_stranded(client: Client, run: str) -> list[str]:
    """The tasks of a run (their keys end with it) that were waiting for a worker that is gone, now placed on
    any worker: those the driver waits for, and those they wait for (results lost with the worker, computed
    again)."""

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
