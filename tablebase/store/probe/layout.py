"""The layout of a probe index, chosen by size: dense or sparse, figures side by side or by whole tuple.

Dense: one record per key from 0 to the greatest key, found by the key
alone; a key that is no position has the *absent* code (one more code of
the first field: a reserved code costs at most one bit a record, and for
the dense games none, where a presence bitmap would cost a bit a key).
Sparse: the keys, ascending, in the narrowest of 1, 2, 4 or 8 bytes, and
one record per key. A record holds either every figure's code side by side
(*fields*), or the code of its tuple of figure codes in a dictionary of the
distinct tuples (*dictionary*). The four are sized and the smallest taken.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablebase.probe.format import (
    DENSE,
    DICTIONARY,
    FIELDS,
    NONE,
    RAW,
    SPARSE,
    Figure,
    bits_for,
)
from tablebase.store.probe.codes import Coding

DENSE_SLOTS = 1 << 40  # past this many keys a table is indexed sparse whatever the sizes say


@dataclass(frozen=True)
class Plan:
    """The layout chosen, and the widths and places of everything in the records."""

    layout: int
    records: int
    slots: int
    key_bytes: int
    absent: int
    entries: int  # distinct tuples of the record dictionary (DICTIONARY)
    entry_bits: int
    record_bits: int
    widths: tuple[int, ...]  # each figure's field, in a record (FIELDS) or an entry (DICTIONARY)
    offsets: tuple[int, ...]

    @property
    def bytes(self) -> int:
        """The bytes of its keys, records and record dictionary."""
        keys = self.slots * self.key_bytes if self.layout == SPARSE else 0
        return keys + (self.slots * self.record_bits + 7) // 8 + (self.entries * self.entry_bits + 7) // 8

    def figures(self, codings: list[Coding], dictionaries: list[int]) -> tuple[Figure, ...]:
        """The header's figures (``dictionaries``: each one's dictionary section, or NO_SECTION)."""
        return tuple(Figure(c.name, c.type, c.encoding, width, c.flags, section, offset, c.base, c.null)
                     for c, width, offset, section in zip(codings, self.widths, self.offsets, dictionaries))


def entry_widths(codings: list[Coding]) -> tuple[int, ...]:
    """Each figure's field without an absent code (the record dictionary's entries)."""
    return tuple(c.width for c in codings)


def places(widths: tuple[int, ...]) -> tuple[int, ...]:
    """The bit offset of each field, side by side from bit 0."""
    out, at = [], 0
    for width in widths:
        out.append(at)
        at += width
    return tuple(out)


def choose(codings: list[Coding], count: int, greatest: int, tuples: int | None) -> Plan:
    """The smallest of the four layouts for ``count`` keys up to ``greatest`` (``tuples``: distinct tuples
    of figure codes, None if they were too many to count)."""
    widths = entry_widths(codings)
    plans = []
    key_bytes = next(b for b in (1, 2, 4, 8) if max(greatest, 0) < 1 << 8 * b)
    if greatest + 1 <= DENSE_SLOTS:
        slots = greatest + 1
        absent = slots > count
        first = codings[0]
        width = bits_for(first.codes + 1) if absent else first.width
        if not (absent and (first.encoding == RAW or width > 64)):  # 64 bits of codes leave none to reserve
            dense = (width, *widths[1:])
            plans.append(Plan(DENSE, FIELDS, slots, 0, first.codes if absent else NONE, 0, sum(dense), sum(dense),
                              dense, places(dense)))
        if tuples is not None:
            plans.append(Plan(DENSE, DICTIONARY, slots, 0, tuples if absent else NONE, tuples, sum(widths),
                              bits_for(tuples + absent), widths, places(widths)))
    plans.append(Plan(SPARSE, FIELDS, count, key_bytes, NONE, 0, sum(widths), sum(widths), widths, places(widths)))
    if tuples is not None:
        plans.append(Plan(SPARSE, DICTIONARY, count, key_bytes, NONE, tuples, sum(widths), bits_for(tuples),
                          widths, places(widths)))
    return min(plans, key=lambda p: p.bytes)  # the first of equals: dense before sparse, fields before tuples
