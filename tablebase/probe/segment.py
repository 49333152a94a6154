"""A checked segment of a probe index, read in place: a key's slot, a slot's code, a code's row.

``ProbeIndex`` (reader.py) finds a key's segment; a ``Segment`` does the
rest with the standard library: the code at the slot (read inline in the
common cases, each coding as docs/format.md says), the tuple it names, and
each field's value, derived figures made (``assembler``). Rows are decoded
once a code and kept, so a warm probe reads one code and copies a row.
"""

from __future__ import annotations

import bisect
import mmap
import struct
import sys
from collections.abc import Callable
from typing import Any

from tablebase.errors import StoreError
from tablebase.probe.format import (
    BOOLEAN,
    DENSE,
    DERIVED,
    FIELDS,
    FLOAT,
    GROUP,
    HALVED,
    NONE,
    OFFSET,
    RAW,
    TEXT,
    TWO_WIDTHS,
    U64,
    Figure,
    Segment,
    damaged,
    field,
)

_KEY_FORMATS = {1: "B", 2: "H", 4: "I", 8: "Q"}
_DOUBLE = struct.Struct("<d")
_INT = {False: struct.Struct("<q"), True: struct.Struct("<Q")}
_WORD = U64.unpack_from
TUPLES_KEPT = 1 << 12  # tuples of a segment kept decoded
_ABSENT: dict[str, Any] = {}  # what a segment keeps for the code of a key that is no position


def assembler(figures: tuple[Figure, ...], given: tuple[Figure, ...]) -> Callable[[list[Any]], dict[str, Any]]:
    """What turns a record's stored values (in field order) into the figures a probe gives, derived ones made."""
    steps = []
    for f in given:
        read = figures[f.reads].field if f.reads != 0xFFFF else -1
        if f.source == DERIVED:  # the outcome from the Grundy value
            steps.append((f.name, 2, read, -1))
        else:
            steps.append((f.name, 1 if f.rule == HALVED else 0, read, f.field))

    def assemble(values: list[Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"key": None}  # the key first, as rows hold it
        for name, how, read, at in steps:
            if how == 0:
                out[name] = values[at]
            elif how == 1:
                v = values[at]
                out[name] = None if v is None else 2 * v + (values[read] != 0)
            else:
                out[name] = "P" if values[read] == 0 else "N"
        return out

    return assemble


class CheckedSegment:
    """One checked segment: a key's slot, a slot's code, a code's row (decoded once, then copied)."""

    def __init__(self, data: mmap.mmap, s: Segment, last: int, stored: tuple[Figure, ...],
                 assemble: Callable[[list[Any]], dict[str, Any]], where: str) -> None:
        self.data, self.s, self.first, self.last, self.where = data, s, s.first, last, where
        self.assemble = assemble
        self.kept: dict[int, dict[str, Any]] = {}
        self.dense = s.layout == DENSE
        if not self.dense:
            size = s.slots * s.key_bytes
            if sys.byteorder == "little":
                self.keys: Any = memoryview(data)[s.keys : s.keys + size].cast(_KEY_FORMATS[s.key_bytes])
            else:
                self.keys = [int.from_bytes(data[s.keys + j * s.key_bytes : s.keys + (j + 1) * s.key_bytes], "little")
                             for j in range(s.slots)]
        self.codes_bits = (s.slots - s.longs) * s.short_bits + s.longs * s.long_bits
        self.decoders = [_decoder(data, f, figure, s.dictionaries[i], where)
                         for i, (f, figure) in enumerate(zip(s.fields, stored))]
        self.places = [(f.offset, (1 << f.width) - 1) for f in s.fields]

        self.row: Callable[[int], dict[str, Any] | None] = self._reader()

    def _reader(self) -> Callable[[int], dict[str, Any] | None]:
        """The row of a key of the segment's range (without the key), or None if it is not stored: a
        function that keeps the segment's numbers in locals, a dense segment's code read inline."""
        s, data, kept, first = self.s, self.data, self.kept, self.first
        decode, code_of = self.decode, self.code

        def found_of(code: int) -> dict[str, Any] | None:
            found = kept.get(code)
            if found is None:
                found = decode(code)
                if len(kept) < TUPLES_KEPT:
                    kept[code] = found
            return None if found is _ABSENT else found.copy()  # type: ignore[union-attr]

        if not self.dense:
            keys, slots = self.keys, s.slots

            def sparse(key: int) -> dict[str, Any] | None:
                rest = key - first
                slot = bisect.bisect_left(keys, rest)
                if slot >= slots or keys[slot] != rest:
                    return None
                return found_of(code_of(slot))

            return sparse
        if s.coding != TWO_WIDTHS and s.long_bits <= 57:
            records, width, mask = s.records, s.long_bits, (1 << s.long_bits) - 1

            def fixed(key: int) -> dict[str, Any] | None:
                bit = (key - first) * width
                code = _WORD(data, records + (bit >> 3))[0] >> (bit & 7) & mask
                found = kept.get(code)
                if found is None:
                    return found_of(code)
                return None if found is _ABSENT else found.copy()  # type: ignore[union-attr]

            return fixed
        if s.coding == TWO_WIDTHS and s.long_bits <= 57:
            marks, counts, codes, short, long = s.marks, s.counts, s.codes, s.short_bits, s.long_bits
            short_mask, long_mask, end, where = (1 << short) - 1, (1 << long) - 1, self.codes_bits, self.where

            def two(key: int) -> dict[str, Any] | None:
                slot = key - first
                group, within = slot >> 9, slot & 511
                at = marks + (group << 6)
                m = int.from_bytes(data[at : at + (within >> 3) + 1], "little")
                before = _WORD(data, counts + (group << 3))[0] + (m & ((1 << within) - 1)).bit_count()
                bit = (slot - before) * short + before * long
                if m >> within & 1:
                    width, mask = long, long_mask
                else:
                    width, mask = short, short_mask
                if bit + width > end or before > slot:  # a count of the file's: at most the slots before
                    raise damaged(where, f"segment of key {first}: slot {slot}'s code outside the codes")
                code = _WORD(data, codes + (bit >> 3))[0] >> (bit & 7) & mask
                found = kept.get(code)
                if found is None:
                    return found_of(code)
                return None if found is _ABSENT else found.copy()  # type: ignore[union-attr]

            return two
        return lambda key: found_of(code_of(key - first))

    def release(self) -> None:
        """Let go of the views of the mapped file (a mapping cannot close while one is held)."""
        if isinstance(getattr(self, "keys", None), memoryview):
            self.keys.release()

    def code(self, slot: int) -> int:
        s, data = self.s, self.data
        if s.coding != TWO_WIDTHS:
            bit = slot * s.long_bits
            if s.long_bits <= 57:
                return _WORD(data, s.records + (bit >> 3))[0] >> (bit & 7) & ((1 << s.long_bits) - 1)
            at = s.records + (bit >> 3)
            return int.from_bytes(data[at : at + (s.long_bits + 14) // 8], "little") >> (bit & 7) & \
                ((1 << s.long_bits) - 1)
        group = slot // GROUP
        within = slot - group * GROUP
        at = s.marks + 64 * group
        marks = int.from_bytes(data[at : at + within // 8 + 1], "little")
        before = _WORD(data, s.counts + 8 * group)[0] + (marks & ((1 << within) - 1)).bit_count()
        width = s.long_bits if marks >> within & 1 else s.short_bits
        bit = (slot - before) * s.short_bits + before * s.long_bits
        if bit + width > self.codes_bits or before > slot:
            raise damaged(self.where, f"segment of key {s.first}: slot {slot}'s code outside the codes")
        return field(data, s.codes, bit, width)

    def decode(self, code: int) -> dict[str, Any]:
        """The row a code stands for; ``_ABSENT`` for the absent code."""
        s = self.s
        if code == s.absent and s.absent != NONE:  # NONE: every slot is a position (a 64-bit code may be all ones)
            return _ABSENT
        if s.coding == FIELDS:
            record = code
        else:
            if code >= s.entries:
                raise damaged(self.where, f"segment of key {s.first}: tuple {code} of {s.entries}")
            record = field(self.data, s.dictionary, code * s.entry_bits, s.entry_bits)
        return self.assemble([decode(record >> offset & mask)
                              for decode, (offset, mask) in zip(self.decoders, self.places)])


def _decoder(data: Any, f: Any, figure: Figure, at: int, where: str) -> Callable[[int], Any]:
    """code -> value of one field of one segment (its null code to None)."""
    null = f.null if f.nulls else -1
    if f.encoding == OFFSET:
        base = f.base
        if figure.type == BOOLEAN:
            return lambda code: None if code == null else base + code == 1
        return lambda code: None if code == null else base + code
    if f.encoding == RAW:
        return lambda code: None if code == null else _DOUBLE.unpack(code.to_bytes(8, "little"))[0]
    items = f.items

    def bad(code: int) -> StoreError:
        return damaged(where, f"field {figure.name}: code {code} of a dictionary of {items}")

    if figure.type == TEXT:
        texts = at + 8 * (items + 1)
        last = _WORD(data, at + 8 * items)[0]  # the last offset: read_segment placed the texts it says inside

        def text(code: int) -> str | None:
            if code == null:
                return None
            if code >= items:
                raise bad(code)
            a, b = _WORD(data, at + 8 * code)[0], _WORD(data, at + 8 * code + 8)[0]
            if not a <= b <= last:
                raise damaged(where, f"field {figure.name}: text {code} at {a}..{b}")
            return bytes(data[texts + a : texts + b]).decode("utf-8", errors="replace")

        return text
    number = _DOUBLE if figure.type == FLOAT else _INT[figure.unsigned]
    boolean = figure.type == BOOLEAN

    def listed(code: int) -> Any:
        if code == null:
            return None
        if code >= items:
            raise bad(code)
        value = number.unpack_from(data, at + 8 * code)[0]
        return value == 1 if boolean else value

    return listed


