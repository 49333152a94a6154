"""Dask's batched messages sent at once, so that a build's steps wait for no send interval.

The scheduler batches what it sends a worker over 5 ms, and a worker what it
sends the scheduler over 2 ms (distributed's ``BatchedSend``; the intervals
are not in Dask's configuration). A build's steps are a chain: each step's
first task waits for the message that the step below is done and for the
one that starts it, and the intervals were about half of that wait
(benchmarks/bench_steps.py). At zero, a batch goes as soon as the event loop
gets to it; nothing else changes.
"""

from __future__ import annotations

from typing import Any


def send_at_once(client: Any) -> None:
    """Set the intervals of the scheduler's streams to its workers, and of theirs to it, to zero (workers
    that join later keep Dask's); a scheduler that refuses code sent to it keeps them too."""

    # Defined in here, so that they travel by value: the scheduler need not have this package installed.
    def on_scheduler(dask_scheduler: Any = None) -> None:
        for stream in dask_scheduler.stream_comms.values():
            stream.interval = 0.0

    def on_worker(dask_worker: Any = None) -> None:
        dask_worker.batched_stream.interval = 0.0

    try:
        client.run_on_scheduler(on_scheduler)
        client.run(on_worker, on_error="ignore")
    except Exception:  # noqa: BLE001 - a speed-up, never a reason to stop a build
        pass
