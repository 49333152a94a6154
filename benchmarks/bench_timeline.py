"""Where a plain game's build spends its workers' time, phase by phase, from Dask's task stream.

    python benchmarks/bench_timeline.py                       # Kayles 40 and Connect-Four 5x4, two workers
    python benchmarks/bench_timeline.py --only kayles --repeat 3

The games are ``bench_listing.py``'s. A local cluster of ``--workers``
processes, as the build starts its own (``dask_client``: workers forked
with the build's modules imported, Dask's profiler off), is started first
(not timed), and the build command runs against it (``--scheduler``) while
the cluster records every task it runs. Each task belongs to a phase by its
name: the start (the start positions, and small
levels at the top played by one task), the search (the shares' levels
played and their children sent, and small levels below played by one
task), the numbering and the solving. For each phase: its span
(from its first task's start to its last task's end, on any worker), the
seconds the workers ran its tasks (``busy``), and ``use``, busy against the
span times the workers: the share of the workers' time the phase kept them
busy. ``of_command`` is the span against the command's whole wall time, the
baseline measured in the same run; what no phase covers (the command's start,
the waits between phases) is ``outside_s``. With ``--repeat``, each figure is
the median of its runs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_listing import GAMES, options  # noqa: E402
from common import report  # noqa: E402
from distributed import get_task_stream  # noqa: E402

from tablebase.build.cluster.start import dask_client  # noqa: E402

# A task's phase, by the first word of its name (the build's task keys). A serial task (small levels played
# one after another by one task) is the start's before the search's first step, else the search's.
PHASES = {"start": "start", "serial": "serial",
          "expand": "search", "pick": "search", "count": "search", "receive": "search",
          "survey": "numbering", "route": "numbering", "range": "numbering", "answer": "numbering",
          "assemble": "numbering", "level": "numbering", "item": "numbering", "numbering": "numbering",
          "warm": "solving", "solve": "solving", "index": "solving"}
ORDER = ["start", "search", "numbering", "solving"]


def phase_of(key: object) -> str:
    name = key[0] if isinstance(key, tuple) else str(key)
    return PHASES.get(name.split("-", 1)[0], "other")


def one_build(name: str, workers: int) -> dict[str, float]:
    """One build of the game against a fresh local cluster: each phase's span, busy seconds and the command's."""
    path, cls, params, _ = GAMES[name]
    out = Path(tempfile.mkdtemp(prefix="timeline-"))
    try:
        with dask_client(workers=workers) as client, get_task_stream(client=client) as stream:
            began = time.time()
            done = subprocess.run([sys.executable, "-m", "tablebase", "build", "--game", f"{path}:{cls}",
                                   *options(params), "--out", str(out), "--scheduler", client.scheduler.address,
                                   "--quiet", "--position-seconds", "600"], capture_output=True, text=True)
            ended = time.time()
            tasks = stream.data
        if done.returncode:
            sys.exit(done.stderr)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    computed = [(phase_of(task["key"]), part) for task in tasks for part in task["startstops"]
                if part["action"] == "compute"]
    searching = min((part["start"] for phase, part in computed if phase == "search"), default=float("inf"))
    spans: dict[str, list[float]] = {}
    busy: dict[str, float] = {}
    for phase, part in computed:
        if phase == "serial":
            phase = "start" if part["start"] < searching else "search"
        span = spans.setdefault(phase, [part["start"], part["stop"]])
        span[0], span[1] = min(span[0], part["start"]), max(span[1], part["stop"])
        busy[phase] = busy.get(phase, 0.0) + part["stop"] - part["start"]
    figures = {"command_s": ended - began}
    covered = 0.0
    for phase in [*ORDER, "other"]:
        if phase not in spans:
            continue
        span = spans[phase][1] - spans[phase][0]
        covered += span
        figures[f"{phase}_s"] = span
        figures[f"{phase}_busy_s"] = busy[phase]
        figures[f"{phase}_use"] = busy[phase] / (span * workers) if span else 0.0
        figures[f"{phase}_of_command"] = span / (ended - began)
    figures["outside_s"] = (ended - began) - covered
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(GAMES), help="one game (default: both)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each game; each figure is their median")
    args = parser.parse_args()
    for name in [args.only] if args.only else sorted(GAMES, reverse=True):
        runs = [one_build(name, args.workers) for _ in range(args.repeat)]
        keys = [k for k in runs[0] if all(k in run for run in runs)]
        report(name, runs=args.repeat, workers=args.workers,
               **{k: round(statistics.median(run[k] for run in runs), 3) for k in keys})


if __name__ == "__main__":
    main()
