"""The probe index of a table: every row's figures in one file that other programs memory-map.

``write_index`` reads the table's Parquet files three times, a batch at a
time, never the whole table: to survey each figure (``codes``), to count the
distinct tuples of figure codes (where they fit in 64 bits), and, once the
layout is chosen by size (``layout``), to write the records (``order``,
``write``): a sparse index's in key order, a dense index's placed by key a
block of keys at a time. The file is written atomically, and is the same
bytes for the same rows. ``docs/format.md`` is its contract;
``tablebase.probe`` reads it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tablebase.errors import StoreError
from tablebase.lazy import np, pa, pq
from tablebase.probe.format import DENSE, DICTIONARY, FILE_NAME
from tablebase.store.files import sha256_of, table_dir, write_atomic
from tablebase.store.manifest import Manifest
from tablebase.store.probe.codes import TEXT, Coding, coding, survey
from tablebase.store.probe.layout import Plan, choose, entry_widths, places
from tablebase.store.probe.order import Source, batches, in_key_blocks, in_key_order
from tablebase.store.probe.write import BLOCK, encoder, packed_tuples, write_index_file

TUPLES_LISTED = 1 << 22  # distinct tuples of figure codes counted up to this: past it, no record dictionary
PRESENCE_BITS = 26  # tuples of at most this many bits are marked in an array of 2**bits (64 MiB at most)
PASSES = 3  # each row is read this many times: survey, distinct tuples, records
Say = Callable[[str], None]
Done = Callable[[int], None]  # hears rows read, pass after pass: PASSES times the rows in all

__all__ = ["FILE_NAME", "PASSES", "index_record", "write_index"]


def write_index(root: str | Path, manifest: Manifest, say: Say = lambda s: None,
                done: Done = lambda rows: None) -> dict[str, dict[str, Any]]:
    """Write a complete table's probe index; its record for the manifest (file name -> rows, bytes, sha256).

    ``say`` hears what is done, pass by pass; ``done`` the rows read as they are read, ``PASSES`` times
    the table's rows in all (a pass not needed counts its rows at once).
    """
    began = time.perf_counter()
    folder = table_dir(root, manifest.table)
    layout = manifest.layout()
    pieces = [piece for piece in layout.pieces if piece.name in manifest.files]
    if len(pieces) != len(layout.pieces) or not pieces:
        raise StoreError(f"table {manifest.table} is not complete: build it to the end before indexing it")
    sources = [Source.of(folder / piece.name, piece.first == piece.last) for piece in pieces]
    try:
        schema = pq.read_schema(sources[0].path)
    except (OSError, pa.ArrowException) as e:
        raise StoreError(f"cannot read {sources[0].path}: {str(e).splitlines()[0]}") from None
    figures = survey(sources, schema, say, done)
    names = [f.name for f in figures]
    texts = [f.name for f in figures if f.type == TEXT]
    count, greatest = sum(s.rows for s in sources), max((s.most for s in sources), default=-1)
    codings = [coding(f, greatest + 1) for f in figures]
    say(f"surveyed {count:,} rows: " + ", ".join(f"{c.name} {c.width} bits" for c in codings))
    tuples = distinct_tuples(sources, names, texts, codings, say, done)
    plan = choose(codings, count, greatest, None if tuples is None else len(tuples))
    say(f"layout {_describe(plan)}: {plan.bytes / max(count, 1):.3f} bytes a position before dictionaries")
    columns, encode = ["key", *names], encoder(codings, plan, tuples)
    # A dense index places each record by its key, a block at a time: no row need be sorted.
    rows = _counted(in_key_blocks(sources, columns, texts, encode, BLOCK) if plan.layout == DENSE
                    else in_key_order(sources, columns, texts, encode), done)
    about = {"table": manifest.table, "game": manifest.game, "kind": manifest.kind, "params": manifest.params}
    path = folder / FILE_NAME
    write_atomic(path, lambda tmp: write_index_file(Path(tmp), about, codings, plan,
                                                    tuples if plan.records == DICTIONARY else None,
                                                    rows, count))
    record = index_record(path, count)
    say(f"{FILE_NAME}: {record['bytes']:,} bytes, {record['bytes'] / max(count, 1):.3f} bytes a position, "
        f"{time.perf_counter() - began:.1f}s")
    return {FILE_NAME: record}


def index_record(path: Path, rows: int) -> dict[str, Any]:
    """The manifest's record of an index file: rows, bytes, sha256."""
    return {"rows": rows, "bytes": path.stat().st_size, "sha256": sha256_of(path)}


def distinct_tuples(sources: list[Source], names: list[str], texts: list[str], codings: list[Coding],
                    say: Say, done: Done = lambda rows: None) -> np.ndarray | None:
    """The distinct tuples of figure codes, each packed in a 64-bit number, ascending; None if the fields
    are wider than 64 bits or the tuples too many for a record dictionary to pay."""
    widths = entry_widths(codings)
    if sum(widths) > 64:
        done(sum(s.rows for s in sources))
        return None
    bound = min(TUPLES_LISTED, 1 << max(sum(widths) - 1, 0))  # a code as wide as the fields never pays
    offsets = places(widths)
    if sum(widths) <= PRESENCE_BITS:  # a mark for every tuple there could be beats sorting them
        seen = np.zeros(1 << sum(widths), dtype=bool)
        for source in sources:
            for batch in batches(source.path, names, texts):
                seen[packed_tuples([c.encode(batch.column(c.name)) for c in codings], offsets)] = True
                done(batch.num_rows)
        merged = np.flatnonzero(seen).astype(np.uint64)
        return merged if len(merged) <= bound else None
    merged = np.empty(0, dtype=np.uint64)
    held: list[np.ndarray] = []
    read = 0
    for source in sources:
        for batch in batches(source.path, names, texts):
            read += batch.num_rows
            codes = [c.encode(batch.column(c.name)) for c in codings]
            held.append(np.unique(packed_tuples(codes, offsets)))
            done(batch.num_rows)
            if sum(len(h) for h in held) > max(len(merged), 1 << 16):
                merged = np.unique(np.concatenate([merged, *held]))
                held = []
                if len(merged) > bound:
                    say("too many distinct records for a record dictionary")
                    done(sum(s.rows for s in sources) - read)
                    return None
    merged = np.unique(np.concatenate([merged, *held]))
    return merged if len(merged) <= bound else None


def _counted(rows: Iterator[tuple[np.ndarray, np.ndarray]], done: Done) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The rows as given, ``done`` hearing how many as each batch is taken."""
    for keys, payload in rows:
        yield keys, payload
        done(len(keys))


def _describe(plan: Plan) -> str:
    kind = "dense" if plan.layout == DENSE else "sparse"
    held = f"records of {plan.record_bits} bits"
    if plan.records == DICTIONARY:
        held += f" coding {plan.entries:,} distinct tuples of {plan.entry_bits} bits"
    return f"{kind}, {plan.slots:,} slots, {held}"
