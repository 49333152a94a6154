"""Writing a table's probe index: its passes' parts one at a time against several processes at once, in turns.

    python benchmarks/bench_index.py                                   # builds Chomp 13x13 first
    python benchmarks/bench_index.py --db /work/chomp17 --table chomp_17x17 --runs 1

Each run is `tablebase index --force --processes N` as a whole process, on a folder
of hard links to the table's files (the table itself is left as it is), timed
with its peak memory (the process and its children) and its CPU time. The process
counts take turns run after run, so that a shared machine's load falls on all of
them alike; the load average is printed. Every index written must be the same
bytes as the table's own (its SHA-256 in the manifest); the speed-up is the
median time of one process over the median time of each count.
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

from common import PeakMemory, report

from tablebase.probe import FILE_NAME
from tablebase.store import Manifest, table_dir


def linked_copy(root: Path, table: str, into: Path) -> Path:
    """A folder holding the table as hard links to its files (its manifest copied): writing an index
    there replaces the link, never the table's own file."""
    source, target = table_dir(root, table), table_dir(into, table)
    shutil.copytree(source, target, copy_function=os.link, ignore=shutil.ignore_patterns(FILE_NAME))
    (target / "_manifest.json").unlink()
    shutil.copy2(source / "_manifest.json", target / "_manifest.json")
    return into


def index_once(folder: Path, table: str, processes: int) -> tuple[float, float, float, str]:
    """Seconds, peak MiB and CPU seconds of one `tablebase index --force`, and the index's SHA-256."""
    argv = [sys.executable, "-m", "tablebase", "index", "--db", str(folder), table, "--force",
            "--processes", str(processes), "--quiet"]
    with PeakMemory() as memory:
        began = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True)
        seconds = time.perf_counter() - began
    if done.returncode:
        sys.exit(f"bench_index: {done.stderr.strip().splitlines()[-1]}")
    return seconds, memory.mib, memory.cpu_seconds, Manifest.load(folder, table).probe[FILE_NAME]["sha256"]


def ensure_table(args: argparse.Namespace) -> tuple[Path, str]:
    if args.db:
        return Path(args.db), args.table
    from tablebase.build import build_tables
    from tablebase.build.jobs import spec_for

    root = Path(tempfile.mkdtemp(prefix="bench_index_"))
    print(f"building chomp_13x13 into {root} ...", file=sys.stderr)
    list(build_tables([spec_for("chomp", {"rows": 13, "cols": 13})], root, quiet=True))
    return root, "chomp_13x13"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="a folder of tables (default: build Chomp 13x13 in a temporary one)")
    parser.add_argument("--table", default="chomp_13x13")
    parser.add_argument("--processes", default=f"1,{os.cpu_count() or 2}", help="process counts, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="runs of each count, in turns")
    args = parser.parse_args()
    counts = sorted({int(t) for t in args.processes.split(",")})
    root, table = ensure_table(args)
    manifest = Manifest.load(root, table)
    if FILE_NAME not in manifest.probe:
        sys.exit(f"bench_index: {table} has no probe index to compare with (run `tablebase index` first)")
    expected, rows = manifest.probe[FILE_NAME]["sha256"], manifest.probe[FILE_NAME]["rows"]
    with tempfile.TemporaryDirectory(prefix="bench_index_", dir=root.parent) as scratch:
        folder = linked_copy(root, table, Path(scratch))
        runs: dict[int, list[tuple[float, float, float]]] = {n: [] for n in counts}
        for _ in range(args.spans):
            for n in counts:
                seconds, mib, cpu, sha = index_once(folder, table, n)
                if sha != expected:
                    sys.exit(f"bench_index: {n} processes wrote other bytes than the table's index ({sha[:12]})")
                runs[n].append((seconds, mib, cpu))
    print(f"{table}: {rows:,} positions; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"every index the same bytes as the table's (SHA-256 {expected[:12]}...)")
    base = statistics.median(s for s, _, _ in runs[counts[0]])
    for n in counts:
        seconds = statistics.median(s for s, _, _ in runs[n])
        report(f"{n} process{'es' if n > 1 else ''}", seconds=round(seconds, 1),
               positions_per_s=round(rows / seconds), peak_mib=round(max(m for _, m, _ in runs[n])),
               cpu_s=round(statistics.median(c for _, _, c in runs[n]), 1),
               speedup_over_first=round(base / seconds, 2))


if __name__ == "__main__":
    main()
