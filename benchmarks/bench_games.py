"""Games from outside the package: a plain-Python game against its compiled form, and memory plans.

    python benchmarks/bench_games.py                        # Cram 5x5: plain Python vs compiled, 2 workers
    python benchmarks/bench_games.py --cram 4x5 --repeat 3  # smaller, builds taken in turns
    python benchmarks/bench_games.py --memory               # each kind's memory plan against its peak
    python benchmarks/bench_games.py --memory --large       # ... with Tanhinmin 8x6 (81 million positions)

Cram: the whole `tablebase build --game examples/cram.py:Cram` command
(plain Python: the engine lists the positions in one process, then the
workers solve them) and the same for `examples/cram_compiled.py` (keyed, a
numba move generator), each with a local cluster of two workers; positions
per second of the whole command, and the baseline of the same run: the
author's own ``moves()`` called once for every position in one plain loop,
the least any engine calling it could spend.

Memory: one table per kind of game, built with two workers; the plan a
build prints (per worker) against the largest process's measured peak
resident memory. Figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import PeakMemory, report  # noqa: E402

from tablebase.games import find_game  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def build(args: list[str], out: Path) -> tuple[dict, float, dict[str, float], str]:
    """Run ``tablebase build`` as a user does; (summary, wall seconds, peak MiB of the command's
    own process and of its largest worker, stderr)."""
    with PeakMemory() as memory:
        began = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "tablebase", "build", *args, "--out", str(out), "--workers", "2"],
                              capture_output=True, text=True)
        wall = time.perf_counter() - began
    if done.returncode:
        raise SystemExit(f"build failed: {done.stderr.strip().splitlines()[-1]}")
    below = [peak for depth, peak in memory.by_depth.items() if depth >= 2]  # a local cluster's workers
    peaks = {"command": memory.by_depth.get(1, 0) / 2**20, "worker": max(below, default=0) / 2**20}
    return json.loads(done.stdout.splitlines()[-1]), wall, peaks, done.stderr


def moves_alone(rows: int, cols: int) -> tuple[int, float]:
    """The plain game's own moves(), once per reachable position, in one Python loop (the baseline)."""
    cls, _ = find_game(f"{EXAMPLES / 'cram.py'}:Cram")
    game = cls(rows=rows, cols=cols)
    seen, order = {0}, [0]
    for p in order:  # find the positions first: the baseline times the moves alone
        for _, child in game.moves(p):
            if child not in seen:
                seen.add(child)
                order.append(child)
    began = time.perf_counter()
    for p in order:
        for _ in game.moves(p):
            pass
    return len(order), time.perf_counter() - began


def cram(size: str, repeat: int) -> None:
    rows, cols = (int(x) for x in size.lower().split("x"))
    options = ["--rows", str(rows), "--cols", str(cols)]
    best: dict[str, float] = {}
    for _ in range(repeat):
        for name, ref in (("plain", "cram.py:Cram"), ("compiled", "cram_compiled.py:CramCompiled")):
            with tempfile.TemporaryDirectory() as out:
                summary, wall, peaks, err = build(["--game", str(EXAMPLES / ref), *options], Path(out))
            listed = next((line.split("] ", 1)[1] for line in err.splitlines() if "] listed" in line), "")
            n = summary["positions"]
            best[name] = min(best.get(name, wall), wall)
            report(f"cram {size} {name}", positions=n, command_s=wall, table_s=summary["seconds"],
                   per_s_command=int(n / wall), per_s_table=int(n / summary["seconds"]),
                   command_mib=peaks["command"], worker_mib=peaks["worker"], listing=listed or "-")
    n, seconds = moves_alone(rows, cols)
    report("baseline: moves() alone", positions=n, seconds=seconds, positions_per_s=int(n / seconds))
    report("ratio", plain_command_over_moves_alone=best["plain"] / seconds,
           compiled_speed_up=best["plain"] / best["compiled"], builds_each=repeat)


TABLES = [  # (kind, build arguments)
    ("impartial, compiled, dense", ["chomp", "--rows", "12", "--cols", "12"]),
    ("impartial, plain Python", ["--game", str(EXAMPLES / "cram.py:Cram"), "--rows", "4", "--cols", "6"]),
    ("partizan", ["domineering", "--max-cells", "12"]),
    ("partizan, plain Python", ["--game", str(EXAMPLES / "toads_and_frogs.py:ToadsAndFrogs"), "--cells", "9"]),
    ("scored, compiled", ["tanhinmin", "--max-card", "6", "--max-hand", "5"]),
    ("scored, plain Python", ["--game", str(EXAMPLES / "tictactoe.py:TicTacToe")]),
]
LARGE = [("scored, compiled, large", ["tanhinmin", "--max-card", "8", "--max-hand", "6"])]


def memory(large: bool) -> None:
    for kind, args in TABLES + (LARGE if large else []):
        with tempfile.TemporaryDirectory() as out:
            summary, wall, peaks, _ = build(args, Path(out))
        plan = summary["memory_estimate_mib"]
        report(f"memory: {kind}", table=summary["table"], positions=summary["positions"], seconds=wall,
               plan_mib_per_worker=plan, worker_peak_mib=peaks["worker"], plan_over_peak=plan / peaks["worker"],
               command_peak_mib=peaks["command"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cram", default="5x5", help="board of the Cram comparison, RxC")
    parser.add_argument("--repeat", type=int, default=1, help="builds of each form, taken in turns")
    parser.add_argument("--memory", action="store_true", help="each kind's memory plan against its peak")
    parser.add_argument("--large", action="store_true", help="with --memory: Tanhinmin 8x6 too")
    args = parser.parse_args()
    if args.memory:
        memory(args.large)
    else:
        cram(args.cram, args.repeat)


if __name__ == "__main__":
    main()
