"""Connect-Four built with its mirror symmetry against the same build without, in one run.

    python benchmarks/bench_symmetry.py                  # 5 rows, 4 columns
    python benchmarks/bench_symmetry.py --rows 4 --cols 4

Builds ``examples/connect_four.py`` twice into one folder, without and with
``--symmetry`` (each a whole command on a local cluster of two workers,
timed), then reads both tables with SQL and checks, position by position,
what the reduced table promises: it holds one position of each orbit (the
orbits counted here from the full table and the mirror, which shares no
code with the game's ``canonical``), the start position's figures are the
same, every position's figures in the full table equal its mirror's, and
every position's figures equal its representative's in the reduced table.
The positions, the times and the mismatches (0 where all holds) are logged.
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

from common import report  # noqa: E402

import tablebase  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GAME = f"{ROOT / 'examples' / 'connect_four.py'}:ConnectFour"


def build(out: Path, rows: int, cols: int, symmetry: bool) -> tuple[float, dict]:
    """The whole command's seconds and its summary."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tablebase", "build", "--game", GAME, "--rows", str(rows),
                           "--cols", str(cols), "--table", "c4_symmetry" if symmetry else "c4", "--out", str(out),
                           "--quiet", *(["--symmetry"] if symmetry else [])], capture_output=True, text=True)
    if done.returncode:
        sys.exit(done.stderr)
    return time.perf_counter() - began, json.loads(done.stdout.splitlines()[-1])


def mirror(text: str) -> str:
    return "|".join(row[::-1] for row in text.split("|"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5)
    parser.add_argument("--cols", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        full_s, full = build(out, args.rows, args.cols, symmetry=False)
        reduced_s, reduced = build(out, args.rows, args.cols, symmetry=True)
        with tablebase.open(out, games=[GAME]) as tb:
            def figures(table: str) -> dict[str, tuple]:
                return {r.pop("position"): tuple(r.values()) for r in
                        tb.sql(f"SELECT position, outcome, plies FROM {table}").to_pylist()}

            whole, kept = figures(full["table"]), figures(reduced["table"])
    start = "|".join(["." * args.cols] * args.rows)
    orbits = {min(t, mirror(t)) for t in whole}
    report(f"connect-four {args.rows}x{args.cols}",
           positions=len(whole), positions_reduced=len(kept), orbits=len(orbits), share=len(kept) / len(whole),
           seconds=round(full_s, 2), seconds_reduced=round(reduced_s, 2), ratio=round(reduced_s / full_s, 3),
           start=str(whole[start]), start_reduced=str(kept[start]),
           mirror_mismatches=sum(whole[mirror(t)] != f for t, f in whole.items()),
           reduced_mismatches=sum(kept.get(min(t, mirror(t))) != f for t, f in whole.items()),
           not_representatives=len(set(kept) - orbits))


if __name__ == "__main__":
    main()
