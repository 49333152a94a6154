"""What a step of a build waits for between its tasks: Dask's round trip from one step to the next.

    python benchmarks/bench_steps.py                 # 200 steps of 2 tasks, on the build's local cluster
    python benchmarks/bench_steps.py --steps 500 --work-ms 10

A build solves a table level by level: each step's tasks take the step
below's tasks as arguments, as ``build/driver.py`` submits them, one task
per worker. Here each task does nothing but hold its core for ``--work-ms``
(a busy loop, 0 unless told) and return a small record; the run's seconds
less the work are the waits, shared by the steps. The cluster is the one
``tablebase build`` starts on this machine (``dask_client``: two worker
processes forked from the build's fork server), with Dask's send intervals
set to zero as a build sets them, or kept (``--dask-intervals``). A build of
Chomp 13x13 has 92 steps; bench_levels times it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import report  # noqa: E402


def task(work_ms: float, step: int, below: list) -> dict:
    """Hold the core for ``work_ms``, then return a record as small as a solving task's."""
    until = time.perf_counter() + work_ms / 1000
    while time.perf_counter() < until:
        pass
    return {"file": f"rows/{step:07d}.parquet", "rows": 65_536, "bytes": 200_000, "sha256": "0" * 64,
            "seconds": {"read": 0.0, "solve": work_ms / 1000, "write": 0.0}}


def chain(client, steps: int, work_ms: float) -> float:
    """Seconds of ``steps`` steps of one task per worker, each step's tasks taking the step below's."""
    workers = sorted(client.scheduler_info()["workers"])
    began = time.perf_counter()
    below: list = []
    for step in range(steps):
        below = [client.submit(task, work_ms, step, below, key=f"step-{step}.{i}-{began}", pure=False,
                               workers=[worker], allow_other_workers=True)
                 for i, worker in enumerate(workers)]
    client.gather(below)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--work-ms", type=float, default=0.0, help="each task's busy time, in milliseconds")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dask-intervals", action="store_true",
                        help="keep Dask's send intervals, which a build sets to zero (build/cluster/streams.py)")
    args = parser.parse_args()
    from tablebase.build.cluster.start import dask_client
    from tablebase.build.cluster.streams import send_at_once

    with dask_client() as client:
        if not args.dask_intervals:
            send_at_once(client)
        chain(client, 10, 0.0)  # the workers' first tasks and connections, outside the clock
        runs = [chain(client, args.steps, args.work_ms) for _ in range(args.repeat)]
        workers = len(client.scheduler_info()["workers"])
    seconds = statistics.median(runs)
    waits = seconds - args.steps * args.work_ms / 1000
    report("steps", dask_intervals=args.dask_intervals, steps=args.steps, tasks_a_step=workers,
           work_ms=args.work_ms, seconds=seconds, runs=len(runs), wait_a_step_ms=1000 * waits / args.steps)


if __name__ == "__main__":
    main()
