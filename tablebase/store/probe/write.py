"""The bytes of a probe index: sections bit-packed as the rows stream by in key order, then the header.

The file is sized first (every section's length follows from the plan),
then each section is written at its place with its CRC-32 running, and the
header, which holds the CRCs, last. Records are packed eight at a time or
more, so that every pack starts on a byte.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterator
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

CHUNK = 1 << 18  # records packed at a time (a multiple of 8)
CODE_TABLE_BITS = 26  # tuples of at most this many bits are coded through a table of them all (256 MiB at most)
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
    """``pack`` of one field a row, in 64-bit words: each row's bits shifted to their place and the rows
    that share a word OR-ed together (in order, so with one ``reduceat``), then each row that runs over
    into the next word. Spreading every bit into a byte of its own, as ``pack`` does for several fields,
    took a quarter of the time of writing Chomp 17x17's index."""
    n = len(values)
    v = np.ascontiguousarray(values, dtype=np.uint64)
    if width < 64:
        v = v & np.uint64((1 << width) - 1)
    start = np.arange(n, dtype=np.uint64) * np.uint64(width)
    word, shift = (start >> np.uint64(6)).astype(np.intp), start & np.uint64(63)
    words = np.zeros((n * width + 63) // 64 + 1, dtype="<u8")
    firsts = np.flatnonzero(np.concatenate(([True], word[1:] != word[:-1])))
    words[word[firsts]] = np.bitwise_or.reduceat(v << shift, firsts)
    over = np.flatnonzero(shift + np.uint64(width) > np.uint64(64))
    words[word[over] + 1] |= v[over] >> (np.uint64(64) - shift[over])
    return words.tobytes()[: (n * width + 7) // 8]


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
    """A dense table's records by blocks of ``BLOCK`` keys: each block filled with the absent record, then
    with the records of the keys that are positions, given in pieces of ascending keys in any order within
    a block (``order.in_key_blocks``); a key given twice is an error."""

    def __init__(self, records: _Records, slots: int, fill: np.ndarray) -> None:
        self.records, self.slots, self.fill = records, slots, fill
        self.start = 0
        self.block = np.broadcast_to(fill, (min(BLOCK, slots), *fill.shape)).copy()
        self.placed = np.zeros(len(self.block), dtype=bool)

    def add(self, keys: np.ndarray, payload: np.ndarray) -> None:
        while len(keys):
            if keys[0] < self.start:
                raise StoreError(f"a key is stored twice in the table's files (near key {int(keys[0])})")
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
        while self.start < self.slots:
            self._flush()
        self.records.finish()

    def _flush(self) -> None:
        self.records.add(self.block[: min(len(self.block), self.slots - self.start)].copy())
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


def write_index_file(path: Path, about: dict, codings: list[Coding], plan: Plan, tuples: np.ndarray | None,
                     rows: Iterator[tuple[np.ndarray, np.ndarray]], positions: int) -> None:
    """Write the index to ``path``: ``rows`` are (keys, payloads) in key order (for a dense layout, in
    blocks of keys: ``order.in_key_blocks``), payloads made by ``encoder``."""
    sections: list[tuple[int, int]] = []  # (kind, length), in file order
    if plan.layout != DENSE:
        sections.append((KEYS, COUNT.size + plan.slots * plan.key_bytes))
    sections.append((RECORDS, COUNT.size + (plan.slots * plan.record_bits + 7) // 8))
    if plan.records == DICTIONARY:
        sections.append((RECORD_DICTIONARY, COUNT.size + (plan.entries * plan.entry_bits + 7) // 8))
    listed: dict[int, tuple[int, bytes]] = {}  # section index -> (count, items) of each figure's dictionary
    figure_sections = []
    for c in codings:
        figure_sections.append(len(sections) if c.encoding == LISTED else NO_SECTION)
        if c.encoding == LISTED:
            kind, items = dictionary_bytes(c)
            listed[len(sections)] = (len(c.dictionary), items)
            sections.append((kind, COUNT.size + len(items)))
    figures = plan.figures(codings, figure_sections)

    def header(placed: list[Section]) -> Header:
        return Header(plan.layout, plan.records, plan.key_bytes, plan.record_bits, plan.entry_bits, positions,
                      plan.slots, plan.absent, plan.entries, about, figures, tuple(placed), 0)

    size = len(header([Section(kind, 0, 0, length) for kind, length in sections]).pack())
    placed, at = [], size
    for kind, length in sections:
        at += -at % ALIGN
        placed.append(Section(kind, 0, at, length))
        at += padded(length)
    with open(path, "wb") as f:
        f.truncate(at)
        sinks = [_Sink(f.fileno(), s.offset) for s in placed]
        for i, (count, items) in listed.items():
            sinks[i].write(COUNT.pack(count) + items)
        if plan.records == DICTIONARY:
            entries = sinks[[s.kind for s in placed].index(RECORD_DICTIONARY)]
            entries.write(COUNT.pack(plan.entries) + pack(tuples, (plan.entry_bits,)))
        _write_records(plan, sinks[: 2 if plan.layout != DENSE else 1], rows, positions)
        crcs = [Section(s.kind, sink.crc, s.offset, s.length) for s, sink in zip(placed, sinks)]
        for s, sink in zip(placed, sinks):
            if sink.at != s.offset + s.length:
                raise StoreError(f"{path}: section of kind {s.kind} written with {sink.at - s.offset} bytes, "
                                 f"planned {s.length}")
        os.pwrite(f.fileno(), header(crcs).pack(), 0)


def _write_records(plan: Plan, sinks: list[_Sink], rows: Iterator[tuple[np.ndarray, np.ndarray]], positions: int) -> None:
    """The records section (and a sparse table's keys) from the rows in key order."""
    records_sink = sinks[-1]
    records_sink.write(COUNT.pack(plan.slots))
    widths = (plan.record_bits,) if plan.records == DICTIONARY or plan.record_bits <= 64 else plan.widths
    records = _Records(records_sink, widths)
    dense = None
    if plan.layout == DENSE:
        fill = np.array(plan.absent if plan.absent != NONE else 0, dtype=np.uint64)
        if len(widths) > 1:
            fill = np.zeros(len(widths), dtype=np.uint64)
            fill[0] = plan.absent if plan.absent != NONE else 0
        dense = _DenseRecords(records, plan.slots, fill)
    else:
        sinks[0].write(COUNT.pack(plan.slots))
    last, count = -1, 0
    for keys, payload in rows:
        if dense is None and len(keys) and (keys[0] <= last or not (keys[1:] > keys[:-1]).all()):
            raise StoreError(f"a key is stored twice in the table's files (near key {int(keys[0])})")
        last = int(keys[-1]) if len(keys) else last
        count += len(keys)
        if dense is not None:
            dense.add(keys, payload)
        else:
            sinks[0].write(keys.astype(f"<u{plan.key_bytes}").tobytes())
            records.add(payload)
    if count != positions:
        raise StoreError(f"the table's files hold {count:,} rows, {positions:,} when first read")
    if dense is not None:
        dense.finish()
    else:
        records.finish()


def encoder(codings: list[Coding], plan: Plan, tuples: np.ndarray | None) -> Callable[[pa.RecordBatch], np.ndarray]:
    """A batch of rows (key first, then the figures) -> each row's payload: its record (its fields in one
    number, or side by side in a row when they are wider than 64 bits), or its tuple's code."""
    entry = places(entry_widths(codings))
    # A tuple's code read from a table of every tuple there could be, where that table is small: a
    # binary search in the tuples costs a cache miss a step, minutes for Chomp 17x17's rows.
    code_of, bits = None, sum(entry_widths(codings))
    if plan.records == DICTIONARY and tuples is not None and bits <= CODE_TABLE_BITS and 1 << bits <= 4 * plan.slots:
        code_of = np.zeros(1 << bits, dtype=np.uint16 if len(tuples) <= 1 << 16 else np.uint32)
        code_of[tuples.astype(np.intp)] = np.arange(len(tuples))

    def encode(batch: pa.RecordBatch) -> np.ndarray:
        codes = [c.encode(batch.column(c.name)) for c in codings]
        if plan.records == DICTIONARY:
            packed = packed_tuples(codes, entry)
            if code_of is not None:
                return code_of[packed.astype(np.intp)].astype(np.uint64)
            return np.searchsorted(tuples, packed).astype(np.uint64)
        if plan.record_bits <= 64:
            return packed_tuples(codes, plan.offsets)
        return np.column_stack(codes) if codes else np.zeros((batch.num_rows, 0), dtype=np.uint64)

    return encode
