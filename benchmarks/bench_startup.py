"""How soon a build's first task runs, against what its processes cannot help importing, in one run.

    python benchmarks/bench_startup.py              # 5 runs of each, medians
    python benchmarks/bench_startup.py --repeat 9

The floors are fresh interpreters that run nothing of a build:

    interpreter     python -c pass
    dask            import distributed
    import floor    import tablebase.build.cluster.preload: Dask and the worker tasks (numpy, numba, pyarrow, the
                    solvers) with numba ready, as the fork server imports them before it forks the local
                    cluster's workers: what a process must do before it can solve anything
    collector on    the same imports with the garbage collector running through them, as they were
                    before tablebase.build.cluster.imports kept it out (the floor's gain over this is printed)

The builds are the whole ``tablebase build`` command into an empty folder:

    large job       chomp 12x12 (2.7 million positions: worker processes): seconds from the command's
                    start to the fork server being ready and to the first solve task starting on a
                    worker, and the first task against the import floor
    small job       chomp 4x4 (69 positions: workers in threads of the command): the whole command,
                    against the import floor; then the same on one core (taskset -c 0), where the
                    fork server, stopped as soon as the job is found small, would take turns with it

Times are wall-clock from just before the command is started. Nothing is
asserted; on a shared machine read the medians, not single runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import report  # noqa: E402

# Imported by the fork server after its own imports (it is put last in the list it preloads),
# so its first line says when the server is ready; a worker forked from it stamps its first task.
PROBE = '''
import os, time
import tablebase.build.tasks as tasks

def stamp(what):
    with open(os.environ["STARTUP_STAMPS"], "a") as f:
        f.write(f"{time.time()} {what}\\n")

stamp("server ready")
solve = tasks.solve_slices
first = []

def solve_slices(*args, **kwargs):
    if not first:
        first.append(True)
        stamp("first task")
    return solve(*args, **kwargs)

tasks.solve_slices = solve_slices
'''
# The command, with the probe added to what the fork server imports.
COMMAND = "from tablebase.build.cluster import fork_server; fork_server.PRELOAD.append('startup_probe'); " \
          "from tablebase.cli import run; run()"
FLOORS = {
    "interpreter": "pass",
    "dask": "import distributed",
    "import floor": "import tablebase.build.cluster.preload",
    "collector on": "import contextlib, tablebase.build.cluster.imports; "
                    "tablebase.build.cluster.imports.long_lived = contextlib.nullcontext; "
                    "import tablebase.build.cluster.preload",
}


def seconds(argv: list[str], **popen) -> float:
    began = time.time()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, **popen)
    return time.time() - began


def large_job(work: Path) -> dict[str, float]:
    """Seconds to the fork server being ready and to the first task, from the command's start."""
    out, stamps = work / "large", work / "stamps"
    shutil.rmtree(out, ignore_errors=True)
    stamps.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(work), "STARTUP_STAMPS": str(stamps)}
    began = time.time()
    subprocess.run([sys.executable, "-c", COMMAND, "build", "chomp", "--rows", "12", "--cols", "12",
                    "--out", str(out), "--quiet"], check=True, stdout=subprocess.DEVNULL, env=env)
    whole = time.time() - began
    seen: dict[str, float] = {}
    for line in stamps.read_text().splitlines():
        at, what = line.split(" ", 1)
        seen.setdefault(what, float(at) - began)  # the first worker to start a task
    return {"server ready": seen["server ready"], "first task": seen["first task"], "whole": whole}


def small_job(work: Path, one_core: bool) -> float:
    out = work / "small"
    shutil.rmtree(out, ignore_errors=True)
    argv = [sys.executable, "-m", "tablebase", "build", "chomp", "--rows", "4", "--cols", "4", "--out", str(out),
            "--quiet"]
    return seconds(["taskset", "-c", "0", *argv] if one_core else argv)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    one_core = shutil.which("taskset") is not None
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "startup_probe.py").write_text(PROBE)
        runs: dict[str, list[float]] = {}
        # In turn, so that a noisy minute falls on every figure alike.
        for _ in range(args.repeat):
            for name, code in FLOORS.items():
                # Ended as the build command ends (cli.run): without the interpreter's teardown.
                runs.setdefault(name, []).append(seconds([sys.executable, "-c", f"{code}; import os; os._exit(0)"]))
            for name, value in large_job(work).items():
                runs.setdefault(f"large {name}", []).append(value)
            runs.setdefault("small", []).append(small_job(work, one_core=False))
            if one_core:
                runs.setdefault("small, one core", []).append(small_job(work, one_core=True))
    median = {name: statistics.median(values) for name, values in runs.items()}
    floor = median["import floor"]
    print(f"medians of {args.repeat} runs, seconds from the start of each process", flush=True)
    for name in FLOORS:
        report(f"floor: {name}", seconds=round(median[name], 3))
    report("floor / collector on", ratio=round(floor / median["collector on"], 3))
    report("large job: chomp 12x12", server_ready=round(median["large server ready"], 3),
           first_task=round(median["large first task"], 3), whole=round(median["large whole"], 3),
           first_task_over_floor=round(median["large first task"] / floor, 2))
    report("small job: chomp 4x4", whole=round(median["small"], 3), over_floor=round(median["small"] / floor, 2))
    if one_core:
        report("small job, one core", whole=round(median["small, one core"], 3),
               over_floor=round(median["small, one core"] / floor, 2))
    print("command: python benchmarks/bench_startup.py" + (f" --repeat {args.repeat}" if args.repeat != 5 else ""))


if __name__ == "__main__":
    main()
