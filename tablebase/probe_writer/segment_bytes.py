"""One segment's bytes from the codes of its fields: the smallest of the three codings (docs/format.md).

A segment's records are its fields side by side (*fields*), or the number of
their tuple in a dictionary of the segment's distinct tuples (*dictionary*),
or that number in one of two widths (*two widths*: the most frequent tuples
get short codes, and a count of long codes every ``GROUP`` records finds a
record without reading those before it). ``_choose`` keeps the smallest.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

from tablebase.errors import StoreError
from tablebase.lazy import np
from tablebase.probe.format import (
    DENSE,
    DICTIONARY,
    FIELDS,
    GROUP,
    LISTED,
    NONE,
    SEGMENT,
    SEGMENT_MAGIC,
    SPARSE,
    TAIL,
    TWO_WIDTHS,
    Field,
    bits_for,
)
from tablebase.probe_writer.bits import pack, side_by_side, two_widths, wide_records
from tablebase.probe_writer.fields import Coded

COUNTED_BITS = 24  # tuples of at most this many bits are counted in an array of them all (16 MiB at most)


class Sections:
    """A segment's bytes as they are laid out: each section at the next multiple of 8."""

    def __init__(self, head: bytes) -> None:
        self.data = bytearray(head)

    def add(self, section: bytes) -> None:
        self.data += bytes(-len(self.data) % 8)
        self.data += section

    def finish(self) -> bytes:
        return bytes(self.data + bytes(-len(self.data) % 8 + TAIL))


def encode_segment(first: int, last: int, fields: Sequence[Coded], unsigned: Sequence[bool],
                   keys: np.ndarray | None = None, present: np.ndarray | None = None,
                   records: np.ndarray | None = None) -> bytes:
    """A segment of the keys ``first`` to ``last``.

    Dense (``keys`` None): one slot a key, each field's codes one a slot; ``present`` marks the slots that
    are positions (None: all). Sparse: ``keys`` ascending, the fields' codes one a key. ``records``: the
    fields' codes side by side, where the caller has them already (then the fields' own codes are unused).
    """
    slots = last - first + 1 if keys is None else len(keys)
    if records is None and any(len(f.codes) != slots for f in fields) or \
            records is not None and len(records) != slots:
        raise StoreError("a segment's fields do not hold a code for each of its slots")
    widths = [f.width for f in fields]
    entry_bits = sum(widths)
    holes = present is not None and not present.all()
    columns = [f.codes for f in fields]
    if records is None and entry_bits <= 64:
        records = side_by_side(columns, widths)
    choice = _choose(records, columns, entry_bits, slots, present if holes else None)
    coding, long_bits, short_bits = choice.coding, choice.long_bits, choice.short_bits
    placed, at = [], 0
    for f in fields:
        placed.append(Field(f.encoding, f.width, f.nulls, at, f.base, f.null if f.nulls else NONE, f.items))
        at += f.width
    head = SEGMENT.pack(SEGMENT_MAGIC, DENSE if keys is None else SPARSE, coding, len(fields),
                        0 if keys is None else _key_bytes(last - first), first, slots, choice.absent,
                        choice.entries, entry_bits, long_bits, short_bits, bytes(5), choice.longs, bytes(8))
    out = Sections(head + b"".join(f.pack(u) for f, u in zip(placed, unsigned)))
    if keys is not None:
        out.add((np.asarray(keys, dtype=np.uint64) - np.uint64(first)).astype(f"<u{_key_bytes(last - first)}")
                .tobytes())
    if coding == TWO_WIDTHS:
        marks, counts, codes = two_widths(choice.codes, short_bits, long_bits, choice.longs)
        out.add(marks)
        out.add(counts)
        out.add(codes)
    elif coding == DICTIONARY:
        out.add(pack(choice.codes, long_bits))
    elif entry_bits <= 64:
        out.add(pack(choice.codes, long_bits))
    else:
        out.add(wide_records(choice.columns, widths))
    if coding != FIELDS:
        out.add(pack(choice.tuples, entry_bits))
    for f in fields:
        if f.encoding == LISTED:
            out.add(f.dictionary)
    return out.finish()


def segment_crc(data: bytes) -> int:
    return zlib.crc32(data)


def _key_bytes(span: int) -> int:
    return next(b for b in (1, 2, 4, 8) if span < 1 << (8 * b))


class _Choice:
    """The coding chosen and what it writes."""

    def __init__(self, coding: int, long_bits: int, short_bits: int = 0, absent: int = NONE, entries: int = 0,
                 codes: np.ndarray | None = None, tuples: np.ndarray | None = None, longs: int = 0,
                 columns: list[np.ndarray] | None = None) -> None:
        self.coding, self.long_bits, self.short_bits, self.absent = coding, long_bits, short_bits, absent
        self.entries, self.codes, self.tuples, self.longs = entries, codes, tuples, longs
        self.columns = columns


def _choose(records: np.ndarray | None, columns: list[np.ndarray], entry_bits: int, slots: int,
            holes: np.ndarray | None) -> _Choice:
    """The smallest coding of these records, the fields side by side (``columns``, where they are wider than
    64 bits), ``holes`` the present mask where some slots are no position. All three codings are sized and
    the smallest kept, the first of equals in the order fields, dictionary, two widths, so that the same
    codes always give the same bytes."""
    if records is None:
        if holes is not None:
            raise StoreError("a dense segment with keys that are no positions needs records of at most 64 bits")
        return _Choice(FIELDS, entry_bits, columns=columns)
    taken = records if holes is None else records[holes]
    tuples, counts = _counted(taken, entry_bits)
    entries = len(tuples)
    absent_needed = holes is not None
    fields_absent = NONE
    fields_bits = slots * entry_bits
    if absent_needed:  # a record value no position has
        free = _first_missing(tuples, entry_bits)
        fields_bits = slots * entry_bits if free is not None else None
        fields_absent = free if free is not None else NONE
    long_bits = bits_for(entries + absent_needed)
    dictionary_bits = slots * long_bits + entries * entry_bits
    order = np.lexsort((tuples, -counts.astype(np.int64)))  # most frequent first, then by value
    ranked = np.cumsum(counts[order])
    best_short, best_two = 0, None
    for short in range(long_bits):
        shorts = int(ranked[min((1 << short), entries) - 1])
        size = 64 * -(-slots // 64) + 64 * -(-slots // GROUP) + shorts * short + (slots - shorts) * long_bits
        if best_two is None or size < best_two:
            best_short, best_two = short, size
    two_bits = None if best_two is None or entries < 2 else best_two + entries * entry_bits
    sizes = [(fields_bits, FIELDS), (dictionary_bits, DICTIONARY), (two_bits, TWO_WIDTHS)]
    _, coding = min((s, c) for s, c in sizes if s is not None)
    if coding == FIELDS:
        codes = records
        if absent_needed:
            codes = records.copy()
            codes[~holes] = fields_absent
        return _Choice(FIELDS, entry_bits, absent=fields_absent, codes=codes)
    absent = entries if absent_needed else NONE
    if coding == DICTIONARY:
        codes = _numbered(records, tuples, np.arange(entries, dtype=np.uint64), entry_bits)
        if absent_needed:
            codes[~holes] = absent
        return _Choice(DICTIONARY, long_bits, absent=absent, entries=entries, codes=codes, tuples=tuples)
    ranked_tuples = tuples[order]
    rank = np.empty(entries, dtype=np.uint64)
    rank[order] = np.arange(entries, dtype=np.uint64)
    codes = _numbered(records, tuples, rank, entry_bits)
    if absent_needed:
        codes[~holes] = absent
    longs = int(np.count_nonzero(codes >= np.uint64(1 << best_short)))
    return _Choice(TWO_WIDTHS, long_bits, best_short, absent, entries, codes, ranked_tuples, longs)


def _numbered(records: np.ndarray, tuples: np.ndarray, numbers: np.ndarray, bits: int) -> np.ndarray:
    """Each record's number: ``numbers[i]`` where it is ``tuples[i]`` (a record not among them, a hole's, 0).
    Looked up in a table of every tuple where they are narrow, which is many times quicker than a search."""
    if bits <= COUNTED_BITS:
        table = np.zeros(1 << bits, dtype=np.uint64)
        table[tuples.astype(np.intp)] = numbers
        return table[records.astype(np.intp)]
    where = np.minimum(np.searchsorted(tuples, records), len(tuples) - 1)
    return numbers[where]


def _counted(records: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct records, ascending, and how often each comes."""
    if not len(records):
        return np.zeros(1, dtype=np.uint64), np.zeros(1, dtype=np.int64)
    if bits <= COUNTED_BITS:
        counts = np.bincount(records.astype(np.intp), minlength=1)
        tuples = np.flatnonzero(counts)
        return tuples.astype(np.uint64), counts[tuples]
    tuples, counts = np.unique(records, return_counts=True)
    return tuples, counts


def _first_missing(tuples: np.ndarray, bits: int) -> int | None:
    """The least record value of ``bits`` bits that is not among ``tuples`` (ascending), or None."""
    expected = np.arange(len(tuples), dtype=np.uint64)
    gaps = np.flatnonzero(tuples != expected)
    free = int(gaps[0]) if len(gaps) else len(tuples)
    return free if free < 1 << bits else None
