"""Misère quotients of octal games: each code's quotient to a number of heaps, its size and its time, logged.

    python benchmarks/bench_misere.py                      # the codes of docs/misere.md's table
    python benchmarks/bench_misere.py --codes 0.77:80,0.07:30

Each code runs as a whole ``tablebase misere CODE --heaps N --json``
command (its start included), timed beside the interpreter's own start in
the same run (the baseline: what any command pays before it computes). The
order, the P-portion's size and the heap at which the quotient last grew
come from the command's JSON; a code whose quotient the bounds refuse is
logged as refused, with its one line.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import PeakMemory, report  # noqa: E402

CODES = "0.12:60,0.31:60,0.333:60,0.52:60,0.75:60,0.15:60,0.77:80,0.137:29,0.07:30,4.7:24,0.6:16,0.6:17"


def timed(argv: list[str]) -> tuple[float, subprocess.CompletedProcess, PeakMemory]:
    began = time.perf_counter()
    with PeakMemory() as memory:
        done = subprocess.run(argv, capture_output=True, text=True)
    return time.perf_counter() - began, done, memory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--codes", default=CODES, help="CODE:HEAPS, comma separated")
    args = parser.parse_args()
    start, _, _ = timed([sys.executable, "-c", "pass"])
    report("the interpreter alone", seconds=round(start, 3))
    for item in args.codes.split(","):
        code, heaps = item.split(":")
        seconds, done, memory = timed([sys.executable, "-m", "tablebase", "misere", code, "--heaps", heaps, "--json"])
        figures = {"heaps": int(heaps), "seconds": round(seconds, 2), "peak_mib": round(memory.mib),
                   "over_start": round(seconds / start, 1)}
        if done.returncode:
            figures["refused"] = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "exit"
        else:
            answer = json.loads(done.stdout)
            figures.update(order=answer["order"], p_portion=answer["p_portion_size"], stable_from=answer["stable_from"])
        report(f"misere {code}", **figures)


if __name__ == "__main__":
    main()
