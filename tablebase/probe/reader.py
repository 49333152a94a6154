"""Probing a table's index by memory-mapping it: the standard library only for one probe.

Opening reads the directory (``probe.tbi``, small) and checks it whole; a
probe then finds its key's segment by a binary search over the segments'
first keys, maps that segment's file the first time, checks the segment
(its CRC-32 and every field) the first time it is touched, and reads the
record's code and the tuple it names. Tuples are decoded once and kept, so
a warm probe reads one code and copies a row. ``probe_many`` of a numpy
array answers in columns with numpy (``columns.py``), which it imports then.

``IndexFolder`` keeps a bounded number of a folder's indexes open, as
python-chess keeps Syzygy files: a folder of many tables never holds them
all.
"""

from __future__ import annotations

import bisect
import mmap
import os
import stat
import struct
import sys
import zlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from tablebase.errors import PositionError, StoreError
from tablebase.probe.format import (
    BOOLEAN,
    BY_CHILDREN,
    DENSE,
    DERIVED,
    FIELDS,
    FILE_NAME,
    FLOAT,
    GROUP,
    HALVED,
    NONE,
    OFFSET,
    RAW,
    SEGMENTS_FOLDER,
    TEXT,
    TWO_WIDTHS,
    U64,
    Directory,
    Figure,
    Segment,
    damaged,
    field,
    read_directory,
    read_segment,
)

_KEY_FORMATS = {1: "B", 2: "H", 4: "I", 8: "Q"}
_DOUBLE = struct.Struct("<d")
_INT = {False: struct.Struct("<q"), True: struct.Struct("<Q")}
_WORD = U64.unpack_from
CHECK_BLOCK = 1 << 24  # bytes of a segment checksummed at a time by ``check``
TUPLES_KEPT = 1 << 12  # tuples of a segment kept decoded
SEGMENTS_KEPT = 1 << 12  # segments of an index kept read
_ABSENT: dict[str, Any] = {}  # what a segment keeps for the code of a key that is no position


class ProbeIndex:
    """One table's probe index: ``probe(key)``, ``row(key)``, ``probe_many(keys)``, ``check()``.

    ``figures`` are the figures a probe gives, stored or derived from them;
    ``by_children`` names those a reader that knows the game's moves finds by
    probing the children (an impartial table's ``best_move``).
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = os.fspath(path)  # (pathlib is not imported: a one-shot probe pays for every import)
        try:
            with _open_regular(self.path) as f:
                data = f.read()
        except FileNotFoundError:
            raise StoreError(f"no probe index at {self.path} (make one with: tablebase index)") from None
        except OSError as e:
            raise StoreError(f"cannot open the probe index {self.path}: {e}") from None
        self._data = data
        self.directory: Directory = read_directory(data, self.path)
        d = self.directory
        self.about = d.about
        self.positions = d.positions
        self.figures: tuple[Figure, ...] = tuple(f for f in d.figures if f.rule != BY_CHILDREN or f.source != DERIVED)
        self.names = [f.name for f in self.figures]
        self.by_children = [f.name for f in d.figures if f.source == DERIVED and f.rule == BY_CHILDREN]
        if sys.byteorder == "little":  # bisect runs in C over the directory's bytes
            self._firsts: Any = memoryview(data)[d.firsts : d.firsts + 8 * d.segments].cast("Q")
        else:
            self._firsts = [d.first(data, i) for i in range(d.segments)]
        self._folder = os.path.join(os.path.dirname(self.path), SEGMENTS_FOLDER)
        self._files: dict[int, mmap.mmap] = {}
        self._segments: OrderedDict[int, _Segment] = OrderedDict()
        self._assemble = _assembler(d.figures, self.figures)
        self._columns: Any = None  # what probe_many of arrays keeps (columns.Arrays), made on first use

    # -- one key ------------------------------------------------------------------------------
    def probe(self, key: int) -> dict[str, Any] | None:
        """The figures of the position ``key`` (a dict by figure name), or None if it is not stored."""
        found = self.row(key)
        if found is not None:
            del found["key"]
        return found

    def row(self, key: int) -> dict[str, Any] | None:
        """``{"key": key, **probe(key)}``, or None if not stored."""
        i = bisect.bisect_right(self._firsts, key) - 1 if key >= 0 else -1
        if i < 0:
            return None
        segment = self._segments.get(i)
        if segment is None:
            if key > self.directory.entry(self._data, i)[0]:  # past the segment's last key: not read for it
                return None
            segment = self.segment(i)
        if key > segment.last:
            return None
        found = segment.row(key)
        if found is not None:
            found["key"] = key
        return found

    def row_reader(self) -> Callable[[int], dict[str, Any] | None]:
        """``row``, bound once for many calls (a table's probes)."""
        firsts, kept, segment_of, find = self._firsts, self._segments, self.segment, bisect.bisect_right
        entry, data = self.directory.entry, self._data

        def row(key: int) -> dict[str, Any] | None:
            i = find(firsts, key) - 1 if key >= 0 else -1
            if i < 0:
                return None
            segment = kept.get(i)
            if segment is None:
                if key > entry(data, i)[0]:  # past the segment's last key: not read for it
                    return None
                segment = segment_of(i)
            if key > segment.last:
                return None
            found = segment.row(key)
            if found is not None:
                found["key"] = key
            return found

        return row

    def segment(self, i: int) -> _Segment:
        """Segment ``i``, read and checked the first time (its CRC-32 included), then kept."""
        found = self._segments.get(i)
        if found is not None:
            return found
        d = self.directory
        last, offset, length, file, crc = d.entry(self._data, i)
        data = self.file(file)
        if offset + length > len(data):
            raise damaged(self.path, f"segment {i} at {offset:,} of {d.names[file]}, which has {len(data):,} bytes")
        if zlib.crc32(data[offset : offset + length]) != crc:
            raise damaged(self.path, f"segment {i} in {d.names[file]}: its CRC-32 differs")
        header = read_segment(data, offset, length, d.first(self._data, i), last, d.stored,
                              os.path.join(self._folder, d.names[file]))
        found = _Segment(data, header, last, d.stored, self._assemble, self.path)
        self._segments[i] = found
        while len(self._segments) > SEGMENTS_KEPT:
            self._segments.popitem(last=False)[1].release()
        return found

    def file(self, number: int) -> mmap.mmap:
        """Segment file ``number``, mapped the first time."""
        found = self._files.get(number)
        if found is None:
            path = os.path.join(self._folder, self.directory.names[number])
            try:
                with _open_regular(path) as f:
                    found = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError) as e:  # ValueError: an empty file cannot be mapped
                raise StoreError(f"cannot open the probe index's segment file {path}: {e}") from None
            self._files[number] = found
        return found

    def probe_many(self, keys: Any) -> Any:
        """Many keys at once. A numpy array gets columns: ``{"found": bool array, figure: masked array, ...}``
        (masked where the figure is null or the key not stored; texts as object arrays), computed with
        numpy. Any other iterable gets a list of ``probe`` results."""
        if type(keys).__module__ == "numpy":
            if self._columns is None:
                from tablebase.probe.columns import Arrays  # numpy, imported only for arrays

                self._columns = Arrays(self)
            return self._columns.probe(keys)
        return [self.probe(int(key)) for key in keys]

    # -- checking and closing ---------------------------------------------------------------------
    def check(self) -> list[str]:
        """Every segment read and checked, its CRC-32 included: what is wrong, one line each (empty if nothing)."""
        problems = []
        for i in range(self.directory.segments):
            try:
                self.segment(i)
            except StoreError as e:
                problems.append(str(e))
        return problems

    def close(self) -> None:
        if isinstance(self._firsts, memoryview):
            self._firsts.release()
        self._columns = None
        for segment in self._segments.values():
            segment.release()
        self._segments.clear()
        for data in self._files.values():
            try:
                data.close()
            except BufferError:  # a view of it is still held (an array a batch gave): it closes when let go of
                pass
        self._files.clear()

    def __enter__(self) -> ProbeIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def data(self) -> bytes:
        """The directory's bytes (for numpy's columns)."""
        return self._data


def _open_regular(path: str) -> Any:
    """A file opened to read, if it is a regular one: a pipe or a device in its place is refused, not waited on."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError("not a regular file")
    return os.fdopen(fd, "rb")


def _assembler(figures: tuple[Figure, ...], given: tuple[Figure, ...]) -> Callable[[list[Any]], dict[str, Any]]:
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


class _Segment:
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


class IndexFolder:
    """The probe indexes of a folder of tables, at most ``max_open`` of them open at once.

    The least recently used is closed when another must open; an index got
    from ``index()`` is good until then.
    """

    def __init__(self, root: str | os.PathLike, max_open: int = 32) -> None:
        if max_open < 1:
            raise ValueError("max_open must be at least 1")
        self.root, self.max_open = os.fspath(root), max_open
        self._open: OrderedDict[str, ProbeIndex] = OrderedDict()

    def index(self, table: str) -> ProbeIndex:
        found = self._open.get(table)
        if found is not None:
            self._open.move_to_end(table)
            return found
        if not table or table.startswith(".") or "/" in table or os.sep in table:
            raise StoreError(f"bad table name {table!r}")
        opened = ProbeIndex(os.path.join(self.root, table, FILE_NAME))
        self._open[table] = opened
        while len(self._open) > self.max_open:
            self._open.popitem(last=False)[1].close()
        return opened

    def probe(self, table: str, key: int) -> dict[str, Any]:
        """A stored position's figures; PositionError if the table does not hold the key."""
        found = self.index(table).probe(key)
        if found is None:
            raise PositionError(f"{table}: key {key} is not stored")
        return found

    @property
    def open_tables(self) -> list[str]:
        """The tables open now, least recently used first."""
        return list(self._open)

    def close(self) -> None:
        while self._open:
            self._open.popitem()[1].close()

    def __enter__(self) -> IndexFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
