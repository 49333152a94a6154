"""The bytes of a probe index: sections bit-packed as the rows stream by in key order, then the header.

The file is planned and sized first (``IndexFile``: every section's length
follows from the plan), and what needs no rows is written. The records then
go to their places in parts, each with its CRC-32 running: a dense index's
by ranges of keys (``write_dense_part``), which may be written at once by
different processes, a sparse index's keys and records in one
(``write_sparse``). The header, which holds the sections' CRCs (joined
from their parts'), comes last. Records are packed eight at a time or more,
so that every pack, and every part, starts on a byte.
"""

from __future__ import annotations

import math
import os
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tablebase.errors import StoreError
from tablebase.lazy import np, pa
from tablebase.probe.format import (
    ALIGN,
    COUNT,
    DENSE,
    DICTIONARY,
    FLOAT,
    FLOATS,
    INTEGERS,
    KEYS,
    LISTED,
    NO_SECTION,
    NONE,
    RECORD_DICTIONARY,
    RECORDS,
    TEXT,
    TEXTS,
    Header,
    Section,
    padded,
)
from tablebase.store.probe.codes import Coding
from tablebase.store.probe.layout import Plan, entry_widths, places
from tablebase.store.probe.parts import crc32_joined

CHUNK = 1 << 18  # records packed at a time (a multiple of 8)
CODE_TABLE_BITS = 28  # tuples of at most this many bits are coded by rank in a bitmap of them all (48 MiB at most)
BLOCK = 1 << 20  # a dense index's records placed by key at a time (``order.in_key_blocks``)


def pack(payload: np.ndarray, widths: tuple[int, ...]) -> bytes:
    """Records as one bit string: each row's fields of these widths side by side, least significant bit first.

    A 1-d payload is one field per row (a whole record, or a record's code).
    """
    n = len(payload)
    columns = [payload] if payload.ndim == 1 else [payload[:, i] for i in range(payload.shape[1])]
    total = sum(widths)
    if not n or not total:
        return b""
    if len(columns) == 1:
        return _pack_words(columns[0], total)
    bits = np.empty((n, total), dtype=np.uint8)
    at = 0
    for column, width in zip(columns, widths):
        if width:
            octets = np.ascontiguousarray(column, dtype="<u8").view(np.uint8).reshape(n, 8)
            bits[:, at : at + width] = np.unpackbits(octets, axis=1, bitorder="little")[:, :width]
            at += width
    return np.packbits(bits.reshape(-1), bitorder="little").tobytes()


def _pack_words(values: np.ndarray, width: int) -> bytes:
    """``pack`` of one field a row, in 64-bit words, a period of rows at a time: ``g`` rows of ``width``
    bits (g = 64 / gcd(width, 64)) fill a whole number of words, so the i-th row of every period is at the
    same word and shift. Each of the g places is then one shift and one OR over all periods (and one more
    for the bits that run over into the next word). Spreading every bit into a byte of its own, as
    ``pack`` does for several fields, took a quarter of the time of writing Chomp 17x17's index; shifting
    each row to its own place, half of what is left."""
    n = len(values)
    g = 64 // math.gcd(width, 64)
    periods = -(-n // g)
    v = np.zeros(periods * g, dtype=np.uint64)
    v[:n] = values
    if width < 64:
        v &= np.uint64((1 << width) - 1)
    v = v.reshape(periods, g).T.copy()  # the rows at each place of a period, side by side
    words = np.zeros((width * g // 64, periods), dtype="<u8")
    shifted = np.empty(periods, dtype=np.uint64)
    for i in range(g):
        word, shift = divmod(i * width, 64)
        words[word] |= np.left_shift(v[i], np.uint64(shift), out=shifted)
        if shift + width > 64:
            words[word + 1] |= np.right_shift(v[i], np.uint64(64 - shift), out=shifted)
    return words.T.tobytes()[: (n * width + 7) // 8]


def packed_tuples(codes: list[np.ndarray], offsets: tuple[int, ...]) -> np.ndarray:
    """Each row's figure codes side by side in one 64-bit number (fields of at most 64 bits in all)."""
    out = np.zeros(len(codes[0]) if codes else 0, dtype=np.uint64)
    for column, offset in zip(codes, offsets):
        out |= column << np.uint64(offset)
    return out


class _Sink:
    """Writes one section at its place in the file, its CRC-32 running."""

    def __init__(self, fd: int, offset: int) -> None:
        self.fd, self.at, self.crc, self.start = fd, offset, 0, offset

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            done = os.pwrite(self.fd, view, self.at)
            self.crc = zlib.crc32(view[:done], self.crc)
            self.at += done
            view = view[done:]


class _Records:
    """Records appended in order and packed a chunk at a time."""

    def __init__(self, sink: _Sink, widths: tuple[int, ...]) -> None:
        self.sink, self.widths = sink, widths
        self.held: list[np.ndarray] = []
        self.count = 0

    def add(self, payload: np.ndarray) -> None:
        self.held.append(payload)
        self.count += len(payload)
        if sum(len(p) for p in self.held) >= CHUNK:
            self._pack(final=False)

    def finish(self) -> None:
        self._pack(final=True)

    def _pack(self, final: bool) -> None:
        if not self.held:
            return
        rows = np.concatenate(self.held)
        cut = len(rows) if final else len(rows) - len(rows) % 8
        self.sink.write(pack(rows[:cut], self.widths))
        self.held = [rows[cut:]] if cut < len(rows) else []


class _DenseRecords:
    """A dense table's records for the keys in [start, stop), by blocks of ``BLOCK`` keys: each block filled
    with the absent record, then with the records of the keys that are positions, given in pieces of
    ascending keys in any order within a block (``order.in_key_blocks``); a key given twice is an error."""

    def __init__(self, records: _Records, start: int, stop: int, fill: np.ndarray) -> None:
        self.records, self.start, self.stop, self.fill = records, start, stop, fill
        self.block = np.broadcast_to(fill, (min(BLOCK, stop - start), *fill.shape)).copy()
        self.placed = np.zeros(len(self.block), dtype=bool)

    def add(self, keys: np.ndarray, payload: np.ndarray) -> None:
        while len(keys):
            if keys[0] < self.start:
                raise StoreError(f"a key is stored twice in the table's files (near key {int(keys[0])})")
            if keys[-1] >= self.stop:
                raise StoreError(f"key {int(keys[-1])} is past the index's last ({self.stop - 1})")
            k = int(np.searchsorted(keys, self.start + len(self.block)))
            at = keys[:k] - self.start
            if self.placed[at].any():
                raise StoreError(f"a key is stored twice in the table's files (near key {int(keys[0])})")
            self.placed[at] = True
            self.block[at] = payload[:k]
            if k == len(keys):
                return
            self._flush()
            keys, payload = keys[k:], payload[k:]

    def finish(self) -> None:
        while self.start < self.stop:
            self._flush()
        self.records.finish()

    def _flush(self) -> None:
        self.records.add(self.block[: min(len(self.block), self.stop - self.start)].copy())
        self.start += len(self.block)
        self.block[:] = self.fill
        self.placed[:] = False


def dictionary_bytes(c: Coding) -> tuple[int, bytes]:
    """A figure's dictionary section: its kind and its items (after the count)."""
    if c.type == TEXT:
        texts = [t.encode() for t in c.dictionary.to_pylist()]
        ends = np.cumsum([0] + [len(t) for t in texts], dtype=np.uint64)
        return TEXTS, ends.astype("<u8").tobytes() + b"".join(texts)
    kind = FLOATS if c.type == FLOAT else INTEGERS
    return kind, np.asarray(c.dictionary).astype("<u8" if c.type == FLOAT or c.unsigned else "<i8").tobytes()


@dataclass(frozen=True)
class Written:
    """What a part wrote of a section: the CRC-32 and length of its bytes, and the rows it placed."""

    crc: int
    length: int
    rows: int = 0


@dataclass(frozen=True)
class RecordPart:
    """A dense index's records for the keys in [start, stop), written from byte ``offset`` of the file:
    ``start`` is a multiple of 8 (of ``BLOCK``), so that its records begin on a byte."""

    start: int
    stop: int
    offset: int


@dataclass
class IndexFile:
    """An index file planned: its sections placed and sized, what its header says besides the CRCs."""

    codings: list[Coding]
    plan: Plan
    tuples: np.ndarray | None  # the record dictionary's tuples (DICTIONARY), else None
    positions: int
    about: dict
    sections: list[Section] = field(default_factory=list)  # in file order, CRCs still 0
    listed: dict[int, tuple[int, bytes]] = field(default_factory=dict)  # section -> its count and items
    figure_sections: list[int] = field(default_factory=list)
    size: int = 0

    @classmethod
    def planned(cls, about: dict, codings: list[Coding], plan: Plan, tuples: np.ndarray | None,
                positions: int) -> IndexFile:
        """Every section's length follows from the plan; each is placed after the header, aligned."""
        file = cls(codings, plan, tuples if plan.records == DICTIONARY else None, positions, about)
        kinds: list[tuple[int, int]] = []  # (kind, length)
        if plan.layout != DENSE:
            kinds.append((KEYS, COUNT.size + plan.slots * plan.key_bytes))
        kinds.append((RECORDS, COUNT.size + (plan.slots * plan.record_bits + 7) // 8))
        if plan.records == DICTIONARY:
            kinds.append((RECORD_DICTIONARY, COUNT.size + (plan.entries * plan.entry_bits + 7) // 8))
        for c in codings:
            file.figure_sections.append(len(kinds) if c.encoding == LISTED else NO_SECTION)
            if c.encoding == LISTED:
                kind, items = dictionary_bytes(c)
                file.listed[len(kinds)] = (len(c.dictionary), items)
                kinds.append((kind, COUNT.size + len(items)))
        at = len(file.header([Section(kind, 0, 0, length) for kind, length in kinds]).pack())
        for kind, length in kinds:
            at += -at % ALIGN
            file.sections.append(Section(kind, 0, at, length))
            at += padded(length)
        file.size = at
        return file

    def header(self, sections: list[Section]) -> Header:
        plan = self.plan
        return Header(plan.layout, plan.records, plan.key_bytes, plan.record_bits, plan.entry_bits,
                      self.positions, plan.slots, plan.absent, plan.entries, self.about,
                      plan.figures(self.codings, self.figure_sections), tuple(sections), 0)

    def section(self, holding: int) -> int:
        """The place in ``sections`` of the section of this kind (of the keys or records: there is one)."""
        return [s.kind for s in self.sections].index(holding)

    @property
    def widths(self) -> tuple[int, ...]:
        """The fields each record is packed as: one number, or side by side where wider than 64 bits."""
        plan = self.plan
        return (plan.record_bits,) if plan.records == DICTIONARY or plan.record_bits <= 64 else plan.widths

    def dense_parts(self, count: int) -> list[RecordPart]:
        """A dense index's records cut in about ``count`` parts of whole blocks of keys."""
        blocks = -(-self.plan.slots // BLOCK)
        cuts = sorted({round(i * blocks / max(1, min(count, blocks))) * BLOCK for i in range(count + 1)})
        at = self.sections[self.section(RECORDS)].offset + COUNT.size
        return [RecordPart(a, min(b, self.plan.slots), at + a * self.plan.record_bits // 8)
                for a, b in zip(cuts, cuts[1:]) if a < self.plan.slots]

    def begin(self, path: Path) -> list[list[Written]]:
        """Create the file at its size and write what needs no rows: the dictionaries whole, and the counts
        that begin the records (and keys); what each section has so far."""
        written: list[list[Written]] = []
        entries = self.section(RECORD_DICTIONARY) if self.plan.records == DICTIONARY else None
        with open(path, "wb") as f:
            f.truncate(self.size)
            for i, s in enumerate(self.sections):
                if i in self.listed:
                    count, items = self.listed[i]
                    data = COUNT.pack(count) + items
                elif i == entries:
                    data = COUNT.pack(self.plan.entries) + pack(self.tuples, (self.plan.entry_bits,))
                else:
                    data = COUNT.pack(self.plan.slots)
                os.pwrite(f.fileno(), data, s.offset)
                written.append([Written(zlib.crc32(data), len(data))])
        return written

    def finish(self, path: Path, written: list[list[Written]]) -> None:
        """The header, with each section's CRC from its parts', once each is whole."""
        placed = []
        for s, parts in zip(self.sections, written):
            length = sum(w.length for w in parts)
            if length != s.length:
                raise StoreError(f"{path}: section of kind {s.kind} written with {length} bytes, planned {s.length}")
            placed.append(Section(s.kind, crc32_joined([(w.crc, w.length) for w in parts]), s.offset, s.length))
        with open(path, "r+b") as f:
            os.pwrite(f.fileno(), self.header(placed).pack(), 0)


def write_dense_part(path: Path, file: IndexFile, rows: Iterator[tuple[np.ndarray, np.ndarray]],
                     part: RecordPart, done: Callable[[int], None]) -> Written:
    """One part of a dense index's records, from its rows in blocks of keys (``order.in_key_blocks``)."""
    plan = file.plan
    fill = np.array(plan.absent if plan.absent != NONE else 0, dtype=np.uint64)
    if len(file.widths) > 1:
        fill = np.zeros(len(file.widths), dtype=np.uint64)
        fill[0] = plan.absent if plan.absent != NONE else 0
    with open(path, "r+b") as f:
        sink = _Sink(f.fileno(), part.offset)
        dense = _DenseRecords(_Records(sink, file.widths), part.start, part.stop, fill)
        count = 0
        for keys, payload in rows:
            dense.add(keys, payload)
            count += len(keys)
            done(len(keys))
        dense.finish()
        os.fsync(f.fileno())
    return Written(sink.crc, sink.at - part.offset, count)


def write_sparse(path: Path, file: IndexFile, rows: Iterator[tuple[np.ndarray, np.ndarray]],
                 done: Callable[[int], None]) -> tuple[Written, Written]:
    """A sparse index's keys and records, from its rows in key order (``order.in_key_order``)."""
    plan = file.plan
    keys_at, records_at = (file.sections[file.section(holding)].offset + COUNT.size for holding in (KEYS, RECORDS))
    with open(path, "r+b") as f:
        keys_sink, records_sink = _Sink(f.fileno(), keys_at), _Sink(f.fileno(), records_at)
        records = _Records(records_sink, file.widths)
        last, count = -1, 0
        for keys, payload in rows:
            if len(keys) and (keys[0] <= last or not (keys[1:] > keys[:-1]).all()):
                raise StoreError(f"a key is stored twice in the table's files (near key {int(keys[0])})")
            last = int(keys[-1]) if len(keys) else last
            count += len(keys)
            keys_sink.write(keys.astype(f"<u{plan.key_bytes}").tobytes())
            records.add(payload)
            done(len(keys))
        records.finish()
        os.fsync(f.fileno())
    return (Written(keys_sink.crc, keys_sink.at - keys_at, count),
            Written(records_sink.crc, records_sink.at - records_at, count))


def encoder(codings: list[Coding], plan: Plan, tuples: np.ndarray | None) -> Callable[[pa.RecordBatch], np.ndarray]:
    """A batch of rows (key first, then the figures) -> each row's payload: its record (its fields in one
    number, or side by side in a row when they are wider than 64 bits), or its tuple's code."""
    entry = places(entry_widths(codings))
    bits = sum(entry_widths(codings))
    ranked = None
    if plan.records == DICTIONARY and tuples is not None and bits <= CODE_TABLE_BITS and 1 << bits <= 4 * plan.slots:
        ranked = TupleRanks(tuples, bits)

    def encode(batch: pa.RecordBatch) -> np.ndarray:
        codes = [c.encode(batch.column(c.name)) for c in codings]
        if plan.records == DICTIONARY:
            packed = packed_tuples(codes, entry)
            if ranked is not None:
                return ranked(packed)
            return np.searchsorted(tuples, packed).astype(np.uint64)
        if plan.record_bits <= 64:
            return packed_tuples(codes, plan.offsets)
        return np.column_stack(codes) if codes else np.zeros((batch.num_rows, 0), dtype=np.uint64)

    return encode


class TupleRanks:
    """A tuple's code, its rank among the distinct tuples, from a bitmap of every tuple there could be and
    the count of tuples before each 64-bit word of it: two reads a row, in 3/16 of a byte a possible tuple.

    A binary search in the tuples costs a cache miss a step (minutes for Chomp 17x17's rows), and a table of
    every possible tuple's code takes 4 bytes each (128 MiB for Chomp 15x15's 25-bit tuples, which a worker
    limited to 600 MiB cannot spare beside the files it merges).
    """

    def __init__(self, tuples: np.ndarray, bits: int) -> None:
        tuples = tuples.astype(np.uint64)
        self.words = np.zeros(max(1, (1 << bits) >> 6), dtype=np.uint64)
        np.bitwise_or.at(self.words, (tuples >> np.uint64(6)).astype(np.intp), np.uint64(1) << (tuples & np.uint64(63)))
        counts = np.bitwise_count(self.words).astype(np.uint32)
        self.before = np.concatenate([np.zeros(1, dtype=np.uint32), np.cumsum(counts, dtype=np.uint32)[:-1]])

    def __call__(self, packed: np.ndarray) -> np.ndarray:
        """The codes of these tuples, each one of the distinct tuples."""
        packed = packed.astype(np.uint64, copy=False)
        word = (packed >> np.uint64(6)).astype(np.intp)
        below = self.words[word] & ((np.uint64(1) << (packed & np.uint64(63))) - np.uint64(1))
        return (self.before[word] + np.bitwise_count(below)).astype(np.uint64)
