"""Small valid probe indexes that the fuzzer mutates: between them every layout, coding, encoding and rule.

Each is written as the build writes one (``segment_of_rows``, ``segment_of_values``, ``write_segments``,
``write_directory``), in a few segments over two segment files, so that a mutation can move a segment
across files or keys across segments.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
from probe_tables import mixed_rows

from tablebase.probe_writer import (
    fields,
    figures_of,
    impartial_rules,
    segment_of_rows,
    segment_of_values,
    write_directory,
    write_segments,
)


@dataclass
class Seed:
    """A valid index: its table's folder, its rows (by key, the figures a reader gives), its stored keys and each
    segment's first and last key."""

    name: str
    folder: Path
    rows: dict[int, dict]
    stored: list[int]
    segments: list[tuple[int, int]]

    def keys(self, rng: random.Random) -> list[int]:
        """Keys to probe: each segment's ends and their neighbours, stored keys, keys between and beyond."""
        keys = {0, 1, 2**63 - 1, 2**64 - 1, self.stored[-1] + 1}
        for first, last in self.segments:
            keys |= {first, last, first + 1, max(last - 1, 0), (first + last) // 2, last + 1}
        keys |= set(rng.sample(self.stored, min(20, len(self.stored))))
        keys |= {rng.randrange(self.stored[-1] + 2) for _ in range(6)}
        out = sorted(keys)
        rng.shuffle(out)
        return out


def _write(root: Path, name: str, rows: pa.Table, cuts: list[int], rules: dict | None = None,
           values: bool = False) -> Seed:
    """An index of ``rows`` (sorted by key) cut into segments at the row numbers ``cuts``: the first segment in
    file ``a.tbs``, the rest in ``b.tbs``. ``values``: the segments made from an impartial table's values
    held in key order (dense, keys that are no position absent), as a dense table's build makes them."""
    figures = figures_of(rows.schema, rules or {})
    keys = rows.column("key").to_numpy()
    bounds = [0, *cuts, len(keys)]
    made = []
    for a, b in zip(bounds, bounds[1:]):
        part = rows.slice(a, b - a)
        if values:
            first, last = int(keys[a]), int(keys[b - 1])
            span = np.arange(first, last + 1)
            present = np.isin(span, keys[a:b])
            grundy = np.zeros(len(span), np.uint8)
            remoteness = np.zeros(len(span), np.uint8)
            grundy[present] = part.column("grundy").to_numpy()
            remoteness[present] = part.column("remoteness").to_numpy()
            misere = np.zeros(len(span), bool)
            misere[present] = part.column("misere_outcome").to_numpy(zero_copy_only=False) == "N"
            made.append((first, last, b - a,
                         segment_of_values(first, grundy, remoteness, misere, present, [True, True, True])))
        else:
            first, last, data = segment_of_rows(part, figures)
            made.append((first, last, b - a, data))
    folder = root / name / "probe"
    folder.mkdir(parents=True)
    files = {"a.tbs": write_segments(root, name, "probe/a.tbs", [m[:2] + m[3:] for m in made[:1]], made[0][2]),
             "b.tbs": write_segments(root, name, "probe/b.tbs", [m[:2] + m[3:] for m in made[1:]],
                                     sum(m[2] for m in made[1:]))}
    write_directory(root, name, {"game": "seed", "params": {"rows": len(keys)}, "table": name}, figures,
                    len(keys), files)
    by_key = {row.pop("key"): row for row in rows.to_pylist()}
    return Seed(name, root / name, by_key, keys.tolist(), [(m[0], m[1]) for m in made])


def _impartial(n: int) -> pa.Table:
    rng = np.random.default_rng(7)
    keys = np.setdiff1d(np.arange(1, n), np.arange(0, n, 11))
    g = rng.choice([0, 0, 1, 2, 3], len(keys)).astype(np.uint8)
    r = (2 * rng.integers(0, 9, len(keys)) + (g != 0)).astype(np.uint8)
    return pa.table({"key": keys, "grundy": g, "outcome": np.where(g == 0, "P", "N"),
                     "misere_outcome": rng.choice(["N", "P"], len(keys)), "remoteness": r,
                     "best_move": pa.array([f"m{i % 3}" for i in range(len(keys))])})


def _skewed(rng: np.random.Generator, n: int) -> pa.Table:
    """Few values most of the time, many now and then: coding *two widths*; some keys no position."""
    keys = np.setdiff1d(np.arange(n), np.arange(0, n, 13))
    m = len(keys)
    return pa.table({"key": keys, "a": np.where(rng.random(m) < 0.9, rng.integers(0, 4, m) * 977,
                                                rng.integers(0, 5000, m) * 977),
                     "t": pa.array(rng.choice(["x", "yy", "zzz", "é"], m))})


def _tuples(rng: np.random.Generator, keys: np.ndarray) -> pa.Table:
    """Wide values in a few tuples: coding *dictionary*."""
    chosen = rng.integers(0, 6, len(keys))
    wide = rng.integers(-2**50, 2**50, 6)
    return pa.table({"key": keys, "a": wide[chosen], "b": pa.array((wide[chosen] * 3) % 2**40, pa.uint64()),
                     "x": pa.array(chosen * 0.5, mask=chosen == 5), "t": pa.array([f"t{c}" for c in chosen])})


def make_seeds(root: Path) -> list[Seed]:
    """Every seed, written under ``root`` (made once; a second call reads nothing and writes them again)."""
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(5)
    holes = np.arange(1, 900, dtype=np.int64)
    holes = holes[holes % 5 != 0]
    n = 3000
    skewed = _skewed(rng, n)
    tuples = _tuples(rng, np.setdiff1d(np.arange(1, 1200), np.arange(0, 1200, 9)))
    impartial = _impartial(1500)
    saved = fields.FLOATS_LISTED
    fields.FLOATS_LISTED = 8  # floats of their own 64 bits, and so records wider than 64 bits
    try:
        m = 300
        wide = pa.table({"key": np.arange(5, 5 + m), "x": pa.array(rng.normal(size=m), mask=np.arange(m) % 13 == 0),
                         "a": pa.array(rng.integers(-2**40, 2**40, m)),
                         "b": pa.array(rng.integers(0, 2**62, m), pa.uint64())})
        seeds = [_write(root, "wide", wide, [150])]
    finally:
        fields.FLOATS_LISTED = saved
    drop = ["position", "level"]
    seeds += [
        _write(root, "fields", mixed_rows(holes).drop_columns(drop), [240, 480]),
        _write(root, "listed", mixed_rows(np.arange(1, 900, dtype=np.int64), distinct=2).drop_columns(drop),
               [300, 600]),
        _write(root, "sparse_wide_keys", mixed_rows(np.arange(1, 400, dtype=np.int64) * (2**37 + 1)).drop_columns(drop),
               [200]),
        _write(root, "sparse", mixed_rows(np.arange(0, 1200, 3, dtype=np.int64), distinct=2).drop_columns(drop),
               [100, 250]),
        _write(root, "two_widths", skewed, [1400]),
        _write(root, "tuples", tuples, [500]),
        _write(root, "tuples_sparse", _tuples(rng, np.arange(1, 600) * 5 + 2**40), [300]),
        _write(root, "impartial", impartial, [600], impartial_rules(impartial.column_names), values=True),
        _write(root, "impartial_rows", impartial, [500, 900], impartial_rules(impartial.column_names)),
    ]
    return seeds
