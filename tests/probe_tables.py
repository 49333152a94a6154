"""Tables for the probe index's tests: synthetic ones written as a build writes them, and the rows as
pyarrow reads them back, which every reader of the index is compared with."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from tablebase.probe_writer import Rules, index_from_files
from tablebase.store import Manifest, Plan, table_dir, write_parquet
from tablebase.store.files import write_table


def synthetic_table(root: Path, name: str, rows: pa.Table, parts: int = 1, run: int = 1,
                    group: int | None = None, rules: Rules | None = None) -> Manifest:
    """Write ``rows`` (a ``key`` and a ``level`` column among them) as a complete table: each level a
    file, or cut in ``parts`` files; ``run`` consecutive levels share a file; ``group``: rows in a Parquet
    row group (the store's own by default). Returns its manifest."""
    order = np.lexsort((rows.column("key").to_numpy(), rows.column("level").to_numpy()))
    rows = rows.take(pa.array(order))
    levels = rows.column("level").to_numpy()
    present = sorted(set(levels.tolist()))
    runs = []
    if parts > 1:
        runs = [[level, parts, [int((levels == level).sum())]] for level in present]
    else:
        for start in range(0, len(present), run):
            chunk = present[start : start + run]
            runs.append([chunk[0], 1, [int((levels == lv).sum()) for lv in range(chunk[0], chunk[-1] + 1)]])
    manifest = Manifest(table=name, game="synthetic", kind="impartial", params={"n": len(rows)}, version="0",
                        partition_rows=1 << 20, plan=Plan(runs), complete=True)
    for piece in manifest.layout().pieces:
        inside = np.flatnonzero((levels >= piece.first) & (levels <= piece.last))
        size = len(inside)
        part = inside[piece.part * size // piece.parts : (piece.part + 1) * size // piece.parts]
        path = table_dir(root, name) / piece.name
        manifest.files[piece.name] = (write_parquet(rows.take(pa.array(part)), path) if group is None else
                                      write_table(rows.take(pa.array(part)), path, sort_key="key",
                                                  statistics=["key", "level"], group=group))
    manifest.levels_done = list(manifest.plan)
    index_from_files(root, manifest, rules or {})
    manifest.save(root)
    return manifest


def stored_rows(root: Path, table: str) -> dict[int, dict[str, Any]]:
    """Every stored row by key, as pyarrow reads the Parquet files (key, position and level left out)."""
    folder = table_dir(root, table)
    data = pa.concat_tables(pq.read_table(p) for p in sorted(folder.glob("rows/*.parquet")))
    out = {}
    for row in data.to_pylist():
        key = row.pop("key")
        row.pop("level")
        row.pop("position", None)
        out[key] = row
    return out


def same(a: Any, b: Any) -> bool:
    """Equal figures, floats by their bits (NaN is NaN, -0.0 is not 0.0)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, float) and isinstance(b, float) and struct.pack("<d", a) == struct.pack("<d", b)
    return type(a) is type(b) and a == b


def plain(value: Any) -> Any:
    """A value from a numpy column (or JSON) as Python gives it."""
    if isinstance(value, (np.generic,)):
        value = value.item()
    return value


def json_figures(found: dict[str, Any]) -> dict[str, Any]:
    """A C reader's JSON object, its figures only."""
    return {k: v for k, v in found.items() if k not in ("key", "found")}


def mixed_rows(keys: np.ndarray, seed: int = 1, distinct: int = 0) -> pa.Table:
    """Rows of every figure type the index holds, with nulls; ``distinct``: draw each figure from so few
    values that whole tuples repeat (a record dictionary pays)."""
    rng = np.random.default_rng(seed)
    n = len(keys)

    def pick(values: list, nulls: float = 0.1) -> list:
        chosen = [values[i] for i in rng.integers(0, distinct or len(values), n)]
        return [None if rng.random() < nulls else v for v in chosen]

    return pa.table({
        "key": pa.array(keys, pa.int64()),
        "position": pa.array([f"p{k}" for k in keys.tolist()]),
        "small": pa.array(pick(list(range(-5, 6))), pa.int8()),
        "wide": pa.array(pick([2**64 - 1 - i for i in range(0, 3000, 7)], 0.0), pa.uint64()),
        "hashed": pa.array(pick([int(v) for v in rng.integers(-2**62, 2**62, 40)]), pa.int64()),
        "flag": pa.array(pick([True, False]), pa.bool_()),
        "ratio": pa.array(pick([0.0, -0.0, 0.5, -1.25, float("inf"), float("-inf"), float("nan"), 1e300]),
                          pa.float64()),
        "word": pa.array(pick(["", "N", "P", "é", "日本", "a\"b\\c", "line\nbreak"]), pa.string()),
        "nothing": pa.array([None] * n, pa.int32()),
        "level": pa.array((keys % 7).astype(np.int32)),
    })
