"""The Domineering table of every region of at most N cells, then big boards looked up through it.

Run: python benchmarks/bench_domineering.py [--max-cells 12] [--boards 5x5,5x6] [--out DIR]

Builds the table on a local Dask cluster and reports regions per second,
distinct values (forms that are some region's value) and forms in the values
table (closed under options), bytes per position (rows, and rows plus the
values table), wall time and peak memory (the driver and its workers
together), and the CPU seconds of all of them, which other work on a shared
machine does not inflate as it does the wall time. ``--boards ''`` skips the
lookups. Then each empty board is looked up
through the table (its regions larger than the table are valued by search,
every smaller one read from it; the first lookup includes loading the table)
and timed beside cgt-py computing the same board in the same run; the two
values must agree. Figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_cgt_domineering import _import_cgt_py, from_cgt_py  # noqa: E402
from common import PeakMemory, report  # noqa: E402

import tablebase  # noqa: E402
from tablebase.build import build_tables  # noqa: E402
from tablebase.build.jobs import spec_for  # noqa: E402
from tablebase.cgt import parse  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-cells", type=int, default=12)
    ap.add_argument("--boards", default="5x5,5x6", help="rows x columns, comma separated")
    ap.add_argument("--out", help="tablebase folder (default: a temporary one)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--partition-rows", type=int, default=8192)
    ap.add_argument("--no-cgt-py", action="store_true")
    args = ap.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="bench_domineering_"))

    spec = spec_for("domineering", {"max_cells": args.max_cells})
    with PeakMemory() as peak:
        t0 = time.perf_counter()
        [summary] = list(build_tables([spec], out, workers=args.workers, partition_rows=args.partition_rows,
                                      quiet=True))
        wall = time.perf_counter() - t0
    with tablebase.open(out) as tb:
        counts = tb.sql(f"SELECT count(*) FILTER (WHERE positions > 0) AS d, count(*) AS f FROM {spec.name}_values")
        distinct, forms = counts.to_pylist()[0].values()
        values_bytes = sum(f["bytes"] for f in tb._manifest(spec.name).values["files"].values())
    positions = summary.positions
    report(f"build {spec.name}", regions=positions, distinct_values=distinct, values_table_forms=forms,
           wall_s=round(wall, 2), cpu_s=round(peak.cpu_seconds, 1), regions_per_s=round(positions / wall, 1),
           values_per_s=round(distinct / wall, 1),
           bytes_per_position=round(summary.bytes / positions, 2),
           with_values_table=round((summary.bytes + values_bytes) / positions, 2), peak_mib=round(peak.mib, 1),
           **{f"workers_{k}_s": v for k, v in summary.worker_seconds.items()})

    cgt_py = None if args.no_cgt_py else _import_cgt_py()
    with tablebase.open(out) as tb:
        for size in filter(None, args.boards.split(",")):
            rows, cols = (int(x) for x in size.lower().split("x"))
            grid = "|".join("." * cols for _ in range(rows))
            t0 = time.perf_counter()
            row = tb.lookup(spec.name, grid)
            ours = time.perf_counter() - t0
            theirs = float("nan")
            if cgt_py is not None:
                t0 = time.perf_counter()
                form = cgt_py.Domineering(grid).canonical_form
                theirs = time.perf_counter() - t0
                if from_cgt_py(form, {}) != parse(row["value"]):
                    raise SystemExit(f"{size}: the table says {row['value']}, cgt-py {form!r}")
            report(f"lookup {size}", table_s=round(ours, 2), cgt_py_s=round(theirs, 2),
                   speedup=round(theirs / ours, 2) if theirs == theirs else "n/a",
                   searched=row["searched"], value=row["value"])


if __name__ == "__main__":
    main()
