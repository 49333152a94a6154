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
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from tablebase.errors import StoreError
from tablebase.lazy import np, pa, pq
from tablebase.probe.format import DENSE, DICTIONARY, FILE_NAME, KEYS, RECORDS
from tablebase.store.files import sha256_of, table_dir, write_atomic
from tablebase.store.manifest import Manifest
from tablebase.store.probe.codes import TEXT, Coding, Survey, blank_surveys, coding, survey_file
from tablebase.store.probe.layout import Plan, choose, entry_widths, places
from tablebase.store.probe.order import Source, in_key_blocks, in_key_order
from tablebase.store.probe.parts import Done, InProcesses, InThreads, Parallel
from tablebase.store.probe.write import (
    BLOCK,
    IndexFile,
    RecordPart,
    Written,
    encoder,
    packed_tuples,
    write_dense_part,
    write_sparse,
)

TUPLES_LISTED = 1 << 22  # distinct tuples of figure codes counted up to this: past it, no record dictionary
PRESENCE_BITS = 26  # tuples of at most this many bits are marked in an array of 2**bits (64 MiB at most)
PASSES = 3  # each row is read this many times: survey, distinct tuples, records
# The work of a row in each pass, as ``done`` counts it: the records' pass took three times the survey's
# for Chomp 17x17 (56, 77 and 177 s), so that an ETA from the rate so far comes out right from the start.
WEIGHTS = (1, 1, 3)
WORK = sum(WEIGHTS)
PARTS_PER_TASK = 2  # a dense index's records in this many ranges of keys for each part run at once
Say = Callable[[str], None]

__all__ = ["FILE_NAME", "PASSES", "WORK", "InProcesses", "InThreads", "Parallel", "index_record", "write_index"]


def write_index(root: str | Path, manifest: Manifest, say: Say = lambda s: None,
                done: Done = lambda rows: None, parallel: Parallel | None = None) -> dict[str, dict[str, Any]]:
    """Write a complete table's probe index; its record for the manifest (file name -> rows, bytes, sha256).

    ``say`` hears what is done, pass by pass; ``done`` the rows read as they are read, each pass's rows
    counted ``WEIGHTS`` times: ``WORK`` times the table's rows in all (a pass not needed counts its rows
    at once). ``parallel`` runs each pass's parts (one at a time by default).
    """
    began = time.perf_counter()
    parallel = parallel or InThreads()
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
    count, greatest = sum(s.rows for s in sources), max((s.most for s in sources), default=-1)
    with _Pass(done, count, WEIGHTS[0]) as heard:
        figures = _surveyed(parallel, blank_surveys(sources, schema), sources, heard)
    names = [f.name for f in figures]
    texts = [f.name for f in figures if f.type == TEXT]
    codings = [coding(f, greatest + 1) for f in figures]
    say(f"surveyed {count:,} rows: " + ", ".join(f"{c.name} {c.width} bits" for c in codings))
    with _Pass(done, count, WEIGHTS[1]) as heard:
        tuples = distinct_tuples(parallel, sources, codings, say, heard)
    plan = choose(codings, count, greatest, None if tuples is None else len(tuples))
    say(f"layout {_describe(plan)}: {plan.bytes / max(count, 1):.3f} bytes a position before dictionaries")
    about = {"table": manifest.table, "game": manifest.game, "kind": manifest.kind, "params": manifest.params}
    file = IndexFile.planned(about, codings, plan, tuples, count)
    work = _RecordsWork(file, sources, ["key", *names], texts)
    path = folder / FILE_NAME
    with _Pass(done, count, WEIGHTS[2]) as heard:
        write_atomic(path, lambda tmp: _write_file(Path(tmp), work, parallel, heard))
    record = index_record(path, count)
    say(f"{FILE_NAME}: {record['bytes']:,} bytes, {record['bytes'] / max(count, 1):.3f} bytes a position, "
        f"{time.perf_counter() - began:.1f}s")
    return {FILE_NAME: record}


def index_record(path: Path, rows: int) -> dict[str, Any]:
    """The manifest's record of an index file: rows, bytes, sha256."""
    return {"rows": rows, "bytes": path.stat().st_size, "sha256": sha256_of(path)}


class _Pass:
    """One pass's rows told to ``done`` as they are read, ``weight`` times each, and the rest of its
    ``rows`` at its end (a pass cut short, or not needed, counts them all)."""

    def __init__(self, done: Done, rows: int, weight: int) -> None:
        self.done, self.rows, self.weight, self.heard = done, rows, weight, 0

    def __enter__(self) -> Done:
        return self.add

    def add(self, rows: int) -> None:
        self.heard += rows
        self.done(rows * self.weight)

    def __exit__(self, kind: object, *exc: object) -> None:
        if kind is None and self.heard < self.rows:
            self.done((self.rows - self.heard) * self.weight)


def _surveyed(parallel: Parallel, blank: list[Survey], sources: list[Source], done: Done) -> list[Survey]:
    """Each figure's survey over every file: the files surveyed at once, their surveys merged."""
    for _, surveys in parallel(partial(survey_file, blank), sources, done):
        for figure, more in zip(blank, surveys):
            figure.merge(more)
    return blank


def distinct_tuples(parallel: Parallel, sources: list[Source], codings: list[Coding], say: Say,
                    done: Done = lambda rows: None) -> np.ndarray | None:
    """The distinct tuples of figure codes, each packed in a 64-bit number, ascending; None if the fields
    are wider than 64 bits or the tuples too many for a record dictionary to pay."""
    widths = entry_widths(codings)
    if sum(widths) > 64:
        return None
    bound = min(TUPLES_LISTED, 1 << max(sum(widths) - 1, 0))  # a code as wide as the fields never pays
    gathered = _Distinct(bound)
    for _, found in parallel(partial(tuples_in_file, codings, bound), sources, done):
        if found is None or not gathered.add(found):
            say("too many distinct records for a record dictionary")
            return None  # the files not yet read are left unread
    return gathered.result()


def tuples_in_file(codings: list[Coding], bound: int, source: Source, done: Done) -> np.ndarray | None:
    """The distinct tuples of figure codes of one file's rows, ascending; None if more than ``bound``."""
    widths = entry_widths(codings)
    offsets = places(widths)
    names, texts = [c.name for c in codings], [c.name for c in codings if c.type == TEXT]
    if sum(widths) <= PRESENCE_BITS:  # a mark for every tuple there could be beats sorting them
        seen = np.zeros(1 << sum(widths), dtype=bool)
        for batch in source.batches(names, texts):
            seen[packed_tuples([c.encode(batch.column(c.name)) for c in codings], offsets)] = True
            done(batch.num_rows)
        found = np.flatnonzero(seen).astype(np.uint64)
        return found if len(found) <= bound else None
    gathered = _Distinct(bound)
    for batch in source.batches(names, texts):
        tuples = np.unique(packed_tuples([c.encode(batch.column(c.name)) for c in codings], offsets))
        done(batch.num_rows)
        if not gathered.add(tuples):
            return None
    return gathered.result()


class _Distinct:
    """Distinct 64-bit numbers gathered a piece at a time, merged once the pieces held outgrow what is
    merged (so each is sorted a few times, not once a piece); more than ``bound`` of them is too many."""

    def __init__(self, bound: int) -> None:
        self.bound, self.merged, self.held = bound, np.empty(0, dtype=np.uint64), list[np.ndarray]()

    def add(self, values: np.ndarray) -> bool:
        """Take in these numbers; False once more than ``bound`` are known to be distinct."""
        self.held.append(values)
        if sum(len(h) for h in self.held) > max(len(self.merged), 1 << 16):
            self.merged, self.held = np.unique(np.concatenate([self.merged, *self.held])), []
        return len(self.merged) <= self.bound

    def result(self) -> np.ndarray | None:
        """Every distinct number, ascending; None if too many."""
        merged = np.unique(np.concatenate([self.merged, *self.held]))
        return merged if len(merged) <= self.bound else None


@dataclass(frozen=True)
class _RecordsWork:
    """What every part of the records pass needs: the file planned, the table's files, what to read."""

    file: IndexFile
    sources: list[Source]
    columns: list[str]
    texts: list[str]

    def dense_part(self, path: Path, part: RecordPart, done: Done) -> Written:
        """The records of one range of keys, read from the files' row groups that hold them."""
        within = [r for r in (s.within(part.start, part.stop) for s in self.sources) if r is not None]
        encode = encoder(self.file.codings, self.file.plan, self.file.tuples)
        rows = in_key_blocks(within, self.columns, self.texts, encode, BLOCK)
        return write_dense_part(path, self.file, rows, part, done)

    def sparse(self, path: Path, done: Done) -> tuple[Written, Written]:
        encode = encoder(self.file.codings, self.file.plan, self.file.tuples)
        return write_sparse(path, self.file, in_key_order(self.sources, self.columns, self.texts, encode), done)


def _write_file(path: Path, work: _RecordsWork, parallel: Parallel, done: Done) -> None:
    """The index file: planned, its records written in parts (a dense index's ranges of keys at once), and
    its header; every row counted once."""
    file = work.file
    written = file.begin(path)
    if file.plan.layout == DENSE:
        parts = file.dense_parts(PARTS_PER_TASK * parallel.width)
        ends: dict[int, Written] = dict(parallel(partial(_dense_task, work, path), parts, done))
        written[file.section(RECORDS)] += [ends[i] for i in range(len(parts))]
        placed = sum(w.rows for w in ends.values())
    else:
        ((_, (keys, records)),) = list(parallel(partial(_sparse_task, work, path), [None], done))
        written[file.section(KEYS)].append(keys)
        written[file.section(RECORDS)].append(records)
        placed = records.rows
    if placed != file.positions:
        raise StoreError(f"the table's files hold {placed:,} rows, {file.positions:,} when first read")
    file.finish(path, written)


def _dense_task(work: _RecordsWork, path: Path, part: RecordPart, done: Done) -> Written:
    return work.dense_part(path, part, done)


def _sparse_task(work: _RecordsWork, path: Path, _: None, done: Done) -> tuple[Written, Written]:
    return work.sparse(path, done)


def _describe(plan: Plan) -> str:
    kind = "dense" if plan.layout == DENSE else "sparse"
    held = f"records of {plan.record_bits} bits"
    if plan.records == DICTIONARY:
        held += f" coding {plan.entries:,} distinct tuples of {plan.entry_bits} bits"
    return f"{kind}, {plan.slots:,} slots, {held}"
