"""Check a folder of octal tables (a job of codes) against the rules, sharing no code with the solver.

    python benchmarks/check_octal_job.py tb-octal               # every table, values to heap 1,200
    python benchmarks/check_octal_job.py tb-octal --heaps 3000 --proofs-to 16000

For each table it reads the heaps' Grundy values from the Parquet rows with
DuckDB and the recorded figures from the manifest, then checks:

- the values by the definition (the mex of every move's value, splits
  included) to ``--heaps``, and on through the period's proof heap where that
  is at most ``--proofs-to``, so that the values a proof rests on are checked
  too;
- a recorded period: the stored values repeat from the preperiod to the end,
  the value just before the preperiod does not, and the proof heap is the
  Guy-Smith bound h * max(e, 1) + h * p + t - 1 (``docs/octal.md``, "Periods");
- the recorded largest value.

Prints one line a problem and a count; exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time

import duckdb
import numpy as np


def by_definition(digits: list[int], last: int) -> np.ndarray:
    """G(0..last) of the code with these digits after the point, from the rules alone."""
    values = np.zeros(last + 1, dtype=np.int64)
    for n in range(last + 1):
        options: set[int] = set()
        for taken, digit in enumerate(digits, start=1):
            if digit & 1 and n == taken:
                options.add(0)
            if digit & 2 and n > taken:
                options.add(int(values[n - taken]))
            if digit & 4 and n - taken >= 2:
                rest = n - taken
                parts = np.arange(1, rest // 2 + 1)
                options.update(np.unique(values[parts] ^ values[rest - parts]).tolist())
        mex = 0
        while mex in options:
            mex += 1
        values[n] = mex
    return values


def problems(folder: str, manifest: dict, heaps: int, proofs_to: int, con: duckdb.DuckDBPyConnection) -> list[str]:
    """What is wrong with one table; [] when nothing is."""
    code = manifest["params"]["code"]
    digits = [int(c, 16) for c in code.split(".")[1]]
    rows = con.execute("SELECT position::BIGINT AS heap, grundy FROM read_parquet(?) ORDER BY heap",
                       [os.path.join(folder, "rows", "**", "*.parquet")]).fetchnumpy()
    stored = rows["grundy"].astype(np.int64)
    if not (rows["heap"] == np.arange(len(stored))).all() or len(stored) != manifest["params"]["max"] + 1:
        return [f"{code}: the rows are not the heaps 0..{manifest['params']['max']}"]
    found = []
    period = manifest["figures"].get("period")
    last = max(heaps, period["proven_at"]) if period and period["proven_at"] <= proofs_to else heaps
    last = min(last, len(stored) - 1)
    wrong = np.flatnonzero(stored[: last + 1] != by_definition(digits, last))
    if len(wrong):
        found.append(f"{code}: values differ from the definition at heaps {wrong[:5].tolist()}")
    if period:
        e, p, proven_at = period["preperiod"], period["period"], period["proven_at"]
        most_taken = max([k for k, d in enumerate(digits, start=1) if d], default=0)
        most_heaps = 2 if any(d & 4 for d in digits) else 1
        if not (stored[e + p:] == stored[e: len(stored) - p]).all():
            found.append(f"{code}: the values do not repeat with period {p} from {e}")
        if e > 0 and stored[e - 1] == stored[e - 1 + p]:
            found.append(f"{code}: preperiod {e} is not the least")
        if proven_at != most_heaps * max(e, 1) + most_heaps * p + most_taken - 1:
            found.append(f"{code}: proof heap {proven_at} is not the Guy-Smith bound")
    if manifest["figures"]["largest"] != stored.max():
        found.append(f"{code}: largest value {manifest['figures']['largest']}, the rows' {stored.max()}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="a folder a job of octal codes was built into")
    parser.add_argument("--heaps", type=int, default=1200, help="check every table's values to this heap")
    parser.add_argument("--proofs-to", type=int, default=16000,
                        help="and through its period's proof heap when that is at most this")
    args = parser.parse_args()
    manifests = {os.path.dirname(path): json.load(open(path))
                 for path in sorted(glob.glob(os.path.join(args.folder, "*", "_manifest.json")))}
    tables = {folder: m for folder, m in manifests.items() if m.get("game") == "octal" and m.get("complete")}
    if not tables:
        print(f"check_octal_job: no complete octal table in {args.folder}", file=sys.stderr)
        return 1
    start, con, found = time.perf_counter(), duckdb.connect(), []
    for folder, manifest in tables.items():
        found += problems(folder, manifest, args.heaps, args.proofs_to, con)
    periods = sum(m["figures"].get("period") is not None for m in tables.values())
    for line in found:
        print(line)
    print(f"{len(tables)} tables, {periods} periods, values by the definition to heap {args.heaps} "
          f"(and through each proof heap up to {args.proofs_to}): {len(found)} problems, "
          f"{time.perf_counter() - start:.1f} s")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
