"""A build's cost against its positions, side by side in one run: Chomp, small-level games, a reference loop.

    python benchmarks/bench_levels.py              # everything below but Chomp 16x16 and 17x17
    python benchmarks/bench_levels.py --only chomp13,chomp15c
    python benchmarks/bench_levels.py --big        # also Chomp 16x16 and 17x17 --compact, each with its loop

Every figure is the whole ``tablebase build`` command (a fresh process, its
local cluster of two workers, writing into an empty folder) unless it says
"table", which is the build's own seconds from its summary, or "index", the
seconds of its last step (the probe index's segments left, its directory).
The baseline is ``reference_grundy``: Chomp's Grundy values on one core, by
a compiled loop written here and sharing no code with the package: no
remoteness, no best moves, no position text, no files; "loop" is the loop
alone, "loop process" a whole process that runs it (the interpreter's start
and numba's loading of its cached code included, as the command's are).
Ratios are against figures of the same run; targets are printed beside them,
never asserted. The builds and the loops that enter the ratios on Chomp
13x13 and 15x15 run ``--repeat`` times (3 unless told), in turn, and each
figure is the median of its runs: on a shared machine one run of a
10-second command moves by a fifth. Memory is sampled in one more run of
each of them, not in the timed runs: the sampler reads every process's
memory 20 times a second, which took about 2% from the builds on 2 cores.

What it measures, and the targets (2 cores, 24 GiB; the figures of a run are in its output and its log):

    chomp 13x13                             command / loop process <= 1, table / loop <= 2, <= 3 bytes a position
    chomp 2x2 (a build's fixed cost)        13x13's command less it, against the loop process less its own
                                            start (a 2x2 loop process): the work alone, two cores against one
    chomp 15x15 --compact                   command / loop process <= 1, index / command <= 0.1,
                                            Parquet and index <= 3 bytes a position
    subtraction --set 1,3,4 --max 1000000   command / Chomp 13x13 command      target <= 1
    wythoff --max 4096                      command / Chomp 13x13 command      target <= 1.5
    chomp 16x16 (--big)                     command / loop on 16x16            target <= 1.5
    chomp 17x17 --compact (--big)           command <= 20 minutes, index / command <= 0.1
                                            (and command / loop on 17x17, so that a slow machine shows as one)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from math import comb
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import PeakMemory, report  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@numba.njit(cache=True, inline="always")
def grundy_of(a, rank, term, choose, grundy, seen, stamp):
    """The Grundy value of bar ``a`` (of rank ``rank``, its rows' terms ``term``): the least value no bar one
    bite leaves has, those marked in ``seen`` with ``stamp`` on the way.

    Biting at (r, c) cuts rows r.. to at most c squares, so the bites of one
    column c, taken from the lowest row longer than c upwards, each change the
    rank by one more row's term: O(1) a move.
    """
    R = a.shape[0]
    height = R
    for c in range(a[0]):
        while a[height - 1] <= c:
            height -= 1
        child = rank
        for r in range(height - 1, -1, -1):
            child += choose[c + R - r - 1, R - r] - term[r]
            if r == 0 and c == 0:
                break  # the poisoned square
            seen[grundy[child]] = stamp
    g = 0
    while seen[g] == stamp:
        g += 1
    return g


@numba.njit(cache=True)
def _reference_grundy(rows: int, cols: int, choose: np.ndarray) -> np.ndarray:
    """Grundy values of every Chomp bar with ``rows`` rows of at most ``cols`` squares.

    A bar is its row lengths a[0] >= a[1] >= ... (square (0, 0) is poisoned: a
    player who can only take it has lost). Bars are ranked in lexicographic
    order, rank(a) = sum_i C(a[i] + R - i - 1, R - i), so every bar a bite
    leaves ranks below the bar bitten: one pass in rank order solves them all
    (``grundy_of`` walks a bar's bites).
    """
    R = rows
    n = choose[cols + R, R]
    grundy = np.zeros(n, dtype=np.uint16)
    a = np.zeros(R, dtype=np.int64)
    term = np.zeros(R, dtype=np.int64)  # each row's term of the rank
    seen = np.zeros(4096, dtype=np.int64)
    stamp = 0
    for rank in range(1, n):
        # The next bar in lexicographic order: the last row that may grow grows, those below empty.
        i = R - 1
        while i > 0 and a[i] == a[i - 1]:
            i -= 1
        a[i] += 1
        for k in range(i, R):
            if k > i:
                a[k] = 0
            term[k] = choose[a[k] + R - k - 1, R - k]
        stamp += 1
        grundy[rank] = grundy_of(a, rank, term, choose, grundy, seen, stamp)
    return grundy


def reference_grundy(rows: int, cols: int) -> tuple[np.ndarray, float]:
    """The loop's values (by rank) and its seconds, compiled beforehand."""
    size = rows + cols + 2
    choose = np.array([[comb(m, k) for k in range(size)] for m in range(size)], dtype=np.int64)
    _reference_grundy(2, 2, choose)
    began = time.perf_counter()
    values = _reference_grundy(rows, cols, choose)
    return values, time.perf_counter() - began


def reference_process(rows: int, cols: int) -> float:
    """Wall seconds of a whole process that runs the loop (compiled code loaded from numba's cache)."""
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import bench_levels as b; "
              "b.reference_grundy(int(sys.argv[2]), int(sys.argv[3]))")
    command = [sys.executable, "-c", script, str(Path(__file__).parent), str(rows), str(cols)]
    subprocess.run(command, check=True)  # numba's cache written, outside the clock
    began = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - began


def _check_reference() -> None:
    """The loop against Chomp's definition on a 4x4 bar, by plain recursion."""
    memo: dict[tuple[int, ...], int] = {}

    def g(bar: tuple[int, ...]) -> int:
        if bar not in memo:
            options = {g(tuple(min(x, c) if i >= r else x for i, x in enumerate(bar)))
                       for r in range(len(bar)) for c in range(bar[r]) if (r, c) != (0, 0)}
            memo[bar] = next(v for v in range(len(options) + 1) if v not in options)
        return memo[bar]

    values, _ = reference_grundy(4, 4)
    for bar in [(4, 4, 4, 4), (3, 2, 2, 0), (4, 1, 0, 0), (2, 2, 0, 0), (1, 0, 0, 0)]:
        rank = sum(comb(x + 4 - i - 1, 4 - i) for i, x in enumerate(bar))
        assert values[rank] == g(bar), (bar, values[rank], g(bar))


def build(args: list[str], sampled: bool = True) -> dict:
    """Run one ``tablebase build`` command into an empty folder: its wall seconds, summary and,
    if ``sampled``, peak memory."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "tablebase", "build", *args, "--out", out, "--quiet"]
        with PeakMemory() if sampled else contextlib.nullcontext() as memory:
            began = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True)
            seconds = time.perf_counter() - began
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {done.stderr.strip()}")
        summaries = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        index_bytes = sum(p.stat().st_size for p in Path(out).glob("*/probe.tbi")) + \
            sum(p.stat().st_size for p in Path(out).glob("*/probe/*.tbs"))
    run = {"command": seconds, "table": sum(s["seconds"] for s in summaries),
           "index": sum(s.get("index_seconds", 0.0) for s in summaries),
           "positions": sum(s["positions"] for s in summaries), "bytes": sum(s["bytes"] for s in summaries),
           "index_bytes": index_bytes, "plan_mib": max(s["memory_estimate_mib"] for s in summaries),
           # The workers' own seconds, summed over them: a part's read, solve and write (a write made while
           # the next part solves shares its core, so its seconds count that part's too).
           **{f"worker_{phase}_s": sum(s.get("worker_seconds", {}).get(phase, 0.0) for s in summaries)
              for phase in ("read", "solve", "write")}}
    return run | ({"peak_mib": memory.mib, "largest_mib": memory.largest / 2**20} if memory else {})


#: the builds whose ratios are taken against Chomp 13x13: repeated, and their medians compared
REPEATED = ("chomp13", "chomp15c", "subtraction", "wythoff", "chomp2")


def median_run(runs: list[dict], sampled: dict) -> dict:
    """Each figure's median over timed runs of one build (they agree on positions and bytes), and
    the memory of a sampled run."""
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]} | {
        key: sampled[key] for key in ("peak_mib", "largest_mib")}


BUILDS = {
    "chomp2": ["chomp", "--rows", "2", "--cols", "2"],
    "chomp13": ["chomp", "--rows", "13", "--cols", "13"],
    "chomp15c": ["chomp", "--rows", "15", "--cols", "15", "--compact"],
    "subtraction": ["subtraction", "--set", "1,3,4", "--max", "1000000"],
    "wythoff": ["wythoff", "--max", "4096"],
    "fibonacci": ["fibonacci-nim", "--max", "4096"],
    "large": ["--job", str(ROOT / "jobs" / "large.toml")],
    "chomp16": ["chomp", "--rows", "16", "--cols", "16"],
    "chomp17": ["chomp", "--rows", "17", "--cols", "17", "--compact"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated names of: " + ", ".join(BUILDS))
    parser.add_argument("--big", action="store_true", help="also Chomp 16x16 and 17x17")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each of " + ", ".join(REPEATED))
    args = parser.parse_args()
    names = args.only.split(",") if args.only else [n for n in BUILDS if args.big or n not in ("chomp16", "chomp17")]
    unknown = sorted(set(names) - set(BUILDS))
    if unknown:
        raise SystemExit(f"unknown build {', '.join(unknown)} (known: {', '.join(BUILDS)})")
    _check_reference()
    repeated = [name for name in names if name in REPEATED]
    loop_runs: list[float] = []
    processes: dict[int, list[float]] = {13: [], 15: [], 2: []}
    sides = [13] + [15] * ("chomp15c" in names) + [2] * ("chomp2" in names)
    samples: dict[str, list[dict]] = {name: [] for name in repeated}
    for _ in range(max(args.repeat, 1)):
        loop_runs.append(reference_grundy(13, 13)[1])
        for side in sides:
            processes[side].append(reference_process(side, side))
        for name in repeated:
            samples[name].append(build(BUILDS[name], sampled=False))
    loops = {13: statistics.median(loop_runs)}
    process = {side: statistics.median(times) for side, times in processes.items() if times}
    report("loop chomp 13x13", seconds=loops[13], runs=len(loop_runs), positions=comb(26, 13) - 1)
    for side, seconds in process.items():
        report(f"loop process chomp {side}x{side}", seconds=seconds, runs=len(processes[side]),
               positions=comb(2 * side, side) - 1)
    runs: dict[str, dict] = {}
    for name in names:
        runs[name] = run = median_run(samples[name], build(BUILDS[name])) if name in samples else build(BUILDS[name])
        report(name, command_s=run["command"], table_s=run["table"], index_s=run["index"],
               positions=run["positions"], index_bytes_per_position=run["index_bytes"] / max(run["positions"], 1),
               per_position_us=1e6 * run["command"] / max(run["positions"], 1),
               bytes_per_position=run["bytes"] / max(run["positions"], 1),
               plan_mib_per_worker=run["plan_mib"], peak_mib_largest_process=run["largest_mib"],
               peak_mib_all=run["peak_mib"], runs=len(samples.get(name, [run])),
               **{key: run[key] for key in ("worker_read_s", "worker_solve_s", "worker_write_s")},
               command=" ".join(["tablebase", "build", *BUILDS[name]]))
    for side in (16, 17):
        if f"chomp{side}" in names:
            loops[side] = reference_grundy(side, side)[1]
            report(f"loop chomp {side}x{side}", seconds=loops[side], positions=comb(2 * side, side) - 1)
    print()
    chomp = runs.get("chomp13")
    if chomp:
        report("chomp 13x13 / loop", table=chomp["table"] / loops[13], target_table="<= 2",
               command_per_loop_process=chomp["command"] / process[13], target_command="<= 1",
               bytes_per_position=(chomp["bytes"] + chomp["index_bytes"]) / chomp["positions"],
               target_bytes="<= 3")
    if chomp and "chomp2" in runs:
        fixed, loop_start = runs["chomp2"]["command"], process[2]
        report("chomp 13x13 less the fixed costs / loop process less its start", fixed_command_s=fixed,
               loop_process_start_s=loop_start,
               work=(chomp["command"] - fixed) / (process[13] - loop_start), target="<= 1")
    if "chomp15c" in runs:
        c15 = runs["chomp15c"]
        report("chomp 15x15 --compact / loop", command_per_loop_process=c15["command"] / process[15],
               target_command="<= 1", index_share=c15["index"] / c15["command"], target_index="<= 0.1",
               bytes_per_position=(c15["bytes"] + c15["index_bytes"]) / c15["positions"], target_bytes="<= 3")
        for name, target in (("subtraction", "<= 1"), ("wythoff", "<= 1.5")):
            if name in runs:
                report(f"{name} / chomp 13x13", command=runs[name]["command"] / chomp["command"], target=target)
    if "chomp16" in runs:
        report("chomp 16x16 / loop", command=runs["chomp16"]["command"] / loops[16], target="<= 1.5")
    if "chomp17" in runs:
        report("chomp 17x17 --compact", minutes=runs["chomp17"]["command"] / 60, target="<= 20",
               index_share=runs["chomp17"]["index"] / runs["chomp17"]["command"], target_index="<= 0.1",
               command_per_loop=runs["chomp17"]["command"] / loops[17],
               plan_mib_per_worker=runs["chomp17"]["plan_mib"],
               peak_mib_largest_process=runs["chomp17"]["largest_mib"], peak_mib_all=runs["chomp17"]["peak_mib"])


if __name__ == "__main__":
    main()
