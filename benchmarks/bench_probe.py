"""Probing a table through its probe index, from Python and from C, beside DuckDB's point query.

    python benchmarks/bench_probe.py                              # builds Chomp 13x13 first (about a minute)
    python benchmarks/bench_probe.py --db tb --table chomp_13x13

Prints in one run: a cold one-shot probe (a whole `python -c` process), the first
probe after opening, a warm probe, probe_many's rate on ten million random keys,
the C reader's probe timed in C, the index's bytes a position, and DuckDB's
`SELECT ... WHERE key = ?` on the same table's Parquet files as the baseline. A
shared machine slows every figure: the load average is printed, and rates are
given by the wall's clock and by the process's CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

READER = Path(__file__).parent.parent / "readers" / "c" / "tbprobe.c"


def one_shot(path: Path, key: int, runs: int) -> float:
    """Seconds of a whole `python -c` process that opens the index and probes one key (the median)."""
    script = f"from tablebase.probe import ProbeIndex; print(ProbeIndex({str(path)!r}).probe({key}))"
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", script], check=True, capture_output=True)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def in_process(path: Path, keys: list[int]) -> dict[str, float]:
    """Opening, the first probe after it, and warm probes (seconds each)."""
    from tablebase.probe import ProbeIndex

    began = time.perf_counter()
    index = ProbeIndex(path)
    opened = time.perf_counter()
    index.probe(keys[0])
    first = time.perf_counter()
    for key in keys[:1000]:
        index.probe(key)
    wall, cpu = time.perf_counter(), time.process_time()
    for key in keys:
        index.probe(key)
    out = {"open": opened - began, "first": first - opened, "warm": (time.perf_counter() - wall) / len(keys),
           "warm_cpu": (time.process_time() - cpu) / len(keys)}
    index.close()
    return out


def batch(path: Path, slots: int, count: int) -> dict[str, float]:
    """probe_many of ``count`` random keys of a dense table: positions a second, by wall and CPU time."""
    from tablebase.probe import ProbeIndex

    keys = np.random.default_rng(1).integers(0, slots, count)
    with ProbeIndex(path) as index:
        index.probe_many(keys[:100])  # the tables of values, made once
        best_wall = best_cpu = float("inf")
        for _ in range(3):
            wall, cpu = time.perf_counter(), time.process_time()
            found = index.probe_many(keys)
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        assert found["found"].sum() > 0.99 * count
    return {"wall": count / best_wall, "cpu": count / best_cpu}


def in_c(path: Path, count: int) -> dict[str, float] | None:
    """The C reader's probe, timed in C over ``count`` probes of random stored keys (None without cc)."""
    cc = shutil.which("cc")
    if cc is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "tbprobe"
        subprocess.run([cc, "-O2", "-std=c99", "-Wall", "-Werror", "-DTBPROBE_MAIN", "-o", program, READER],
                       check=True)
        runs = [json.loads(subprocess.run([program, "--time", path, str(count)], check=True, capture_output=True,
                                          text=True).stdout) for _ in range(3)]
    return {"wall": min(r["ns_per_probe"] for r in runs) / 1e9, "cpu": min(r["cpu_ns_per_probe"] for r in runs) / 1e9}


def duckdb_point(root: Path, table: str, keys: list[int]) -> float:
    """DuckDB's point query on the table's Parquet files: the median seconds of one `WHERE key = ?`."""
    import duckdb

    from tablebase.store import rows_pattern

    con = duckdb.connect()
    query = f"SELECT * EXCLUDE (position) FROM read_parquet('{rows_pattern(root, table)}') WHERE key = ?"
    con.execute(query, [keys[0]]).fetchall()
    times = []
    for key in keys:
        began = time.perf_counter()
        assert con.execute(query, [key]).fetchall()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def ensure_table(args: argparse.Namespace) -> tuple[Path, str]:
    """The table to measure, built (Chomp 13x13) into a temporary folder unless given, and its index."""
    from tablebase.store import Manifest
    from tablebase.store.probe import FILE_NAME, write_index

    if args.db:
        root, table = Path(args.db), args.table
    else:
        from tablebase.build import build_tables
        from tablebase.build.jobs import spec_for

        root, table = Path(tempfile.mkdtemp(prefix="bench_probe_")), "chomp_13x13"
        print(f"building {table} into {root} ...", file=sys.stderr)
        list(build_tables([spec_for("chomp", {"rows": 13, "cols": 13})], root, quiet=True))
    manifest = Manifest.load(root, table)
    if FILE_NAME not in manifest.probe:
        print(f"writing the probe index of {table} ...", file=sys.stderr)
        manifest.probe = write_index(root, manifest)
        manifest.save(root)
    return root, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="a folder of tables (default: build Chomp 13x13 in a temporary one)")
    parser.add_argument("--table", default="chomp_13x13")
    parser.add_argument("--batch", type=int, default=10_000_000, help="keys of the probe_many batch")
    args = parser.parse_args()
    root, table = ensure_table(args)
    try:
        measure(root, table, args.batch)
    finally:
        if not args.db:
            shutil.rmtree(root)  # the table built for this run


def measure(root: Path, table: str, count: int) -> None:
    """Every figure of the report, in one run, on one table."""
    from tablebase.probe import FILE_NAME, ProbeIndex

    path = root / table / FILE_NAME
    with ProbeIndex(path) as index:
        header = index.header
        rng = random.Random(7)
        keys = [k for k in (rng.randrange(header.slots) for _ in range(120_000)) if index.probe(k) is not None] \
            if header.layout == 1 else None
    if keys is None:
        sys.exit("bench_probe measures a dense table (Chomp, Nim, Wythoff, ...)")
    size = path.stat().st_size
    cold = one_shot(path, keys[0], runs=5)
    probes = in_process(path, keys[:100_000])
    rates = batch(path, header.slots, count)
    c = in_c(path, 10_000_000)
    point = duckdb_point(root, table, keys[:200])
    load = os.getloadavg()[0]
    rows = [
        ("cold one-shot probe (python -c, the whole process)", f"{cold * 1e3:.1f} ms", ""),
        ("open the index (its header only)", f"{probes['open'] * 1e6:.1f} us", ""),
        ("first probe after opening", f"{probes['first'] * 1e6:.1f} us", ""),
        ("warm probe, Python (wall / CPU)", f"{probes['warm'] * 1e6:.2f} / {probes['warm_cpu'] * 1e6:.2f} us",
         "a few us"),
        ("probe_many, numpy (wall / CPU)", f"{rates['wall'] / 1e6:.1f} / {rates['cpu'] / 1e6:.1f} M positions/s",
         ">= 10 M/s"),
        ("probe in C, random keys (wall / CPU)",
         f"{c['wall'] * 1e9:.0f} / {c['cpu'] * 1e9:.0f} ns" if c else "no cc on this machine", "<= 1 us"),
        ("bytes a position, everything included", f"{size / header.positions:.3f} ({size:,} bytes)", "<= 3"),
        ("DuckDB point query on the Parquet files (baseline)", f"{point * 1e3:.2f} ms", ""),
    ]
    print(f"{table}: {header.positions:,} positions; load average {load:.1f} on {os.cpu_count()} cores")
    for measure, figure, target in rows:
        print(f"  {measure:<52} {figure:<34} {('target ' + target) if target else ''}".rstrip())


if __name__ == "__main__":
    main()
