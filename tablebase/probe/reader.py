"""Probing a table's index by memory-mapping it: the standard library only for one probe.

Opening reads the header (and checks its CRC-32); a probe then touches the
pages its key needs: a dense table's record at the key's place, a sparse
table's keys on the way of a binary search and then its record, and the
dictionary entries its figures name. Nothing is loaded up front, so the
first probe after opening costs little more than the next one. The
sections' checksums are checked by ``check`` (``tablebase verify``), not on
open. ``probe_many`` of a numpy array answers in columns with numpy, which
it imports then; the rest imports neither numpy nor pyarrow.

``IndexFolder`` keeps a bounded number of a folder's indexes open, as
python-chess keeps Syzygy files: a folder of many tables never holds them
all.
"""

from __future__ import annotations

import bisect
import mmap
import os
import struct
import sys
import zlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from tablebase.errors import PositionError, StoreError
from tablebase.probe.format import (
    BOOLEAN,
    COUNT,
    DENSE,
    DICTIONARY,
    FILE_NAME,
    FLOATS,
    HAS_NULLS,
    INTEGERS,
    KEYS,
    NONE,
    OFFSET,
    RAW,
    RECORD_DICTIONARY,
    RECORDS,
    TEXTS,
    UNSIGNED,
    Figure,
    Header,
    Section,
    read_header,
)

_KEY_FORMATS = {1: "B", 2: "H", 4: "I", 8: "Q"}
_DOUBLE = struct.Struct("<d")
_INT = {False: struct.Struct("<q"), True: struct.Struct("<Q")}
_OFFSET = struct.Struct("<Q")
_WORD = _OFFSET.unpack_from  # a record's 8 bytes, as one little-endian number
CHECK_BLOCK = 1 << 24  # bytes of a section checksummed at a time
TUPLES_KEPT = 1 << 16  # record dictionary entries kept decoded (a few MiB), the first ones asked for


class ProbeIndex:
    """One table's probe index, memory-mapped: ``probe(key)``, ``probe_many(keys)``, ``check()``."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = os.fspath(path)  # (pathlib is not imported: a one-shot probe pays for every import)
        try:
            with open(self.path, "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except FileNotFoundError:
            raise StoreError(f"no probe index at {self.path} (make one with: tablebase index)") from None
        except (OSError, ValueError) as e:  # ValueError: an empty file cannot be mapped
            raise StoreError(f"cannot open the probe index {self.path}: {e}") from None
        try:
            self.header: Header = read_header(self._map, self.path)
        except StoreError:
            self._map.close()
            raise
        h = self.header
        self.figures: tuple[Figure, ...] = h.figures
        self.names = [f.name for f in h.figures]
        self._records = _payload(h.section(RECORDS))
        self._dense = h.layout == DENSE
        self._by_dictionary = h.records == DICTIONARY
        self._entries = _payload(h.section(RECORD_DICTIONARY)) if self._by_dictionary else 0
        self._record_bytes = (h.record_bits + 14) // 8  # any record, whatever its first bit's place in a byte
        self._entry_bytes = (h.entry_bits + 14) // 8
        self._decoders = [self._decoder(f) for f in h.figures]
        # An integer figure's value is its base plus its code, added in the loop (decode None): a call
        # a figure less for each probe.
        self._fields = [(f.name, f.offset, (1 << f.width) - 1, f.null if f.flags & HAS_NULLS else -1, f.base,
                         None if f.encoding == OFFSET and f.type != BOOLEAN else decode)
                        for f, decode in zip(h.figures, self._decoders)]
        self._record_bits = h.record_bits
        self._first = (h.figures[0].offset, (1 << h.figures[0].width) - 1) if h.figures else (0, 0)
        self._absent = -1 if h.absent == NONE else h.absent  # NONE: every slot is a position
        self._record_mask = (1 << h.record_bits) - 1
        # A record is read as the 8 bytes from its first byte (the format guarantees them): one
        # struct call, where a slice of the map and int.from_bytes cost three times as much.
        self._in_word = h.record_bits + 7 <= 64
        self._slots = h.slots
        # The record dictionary's entries decoded so far, by code, as rows (the key first, then the
        # figures): a warm probe reads one record code and copies its entry.
        self._tuples: dict[int, dict[str, Any]] = {}
        self._keys: Any = None
        if not self._dense:
            start = _payload(h.section(KEYS))
            if sys.byteorder == "little":  # bisect runs in C over the mapped keys
                self._keys = memoryview(self._map)[start : start + h.slots * h.key_bytes].cast(
                    _KEY_FORMATS[h.key_bytes])
            else:
                self._keys = _LittleEndianKeys(self._map, start, h.key_bytes, h.slots)
        self._columns: Any = None  # what probe_many of arrays keeps (columns.Arrays), made on first use

    # -- one key ------------------------------------------------------------------------------
    def probe(self, key: int) -> dict[str, Any] | None:
        """The figures of the position ``key`` (a dict by figure name), or None if it is not stored."""
        found = self.row(key)
        if found is not None:
            del found["key"]
        return found

    def row(self, key: int) -> dict[str, Any] | None:
        """``{"key": key, **probe(key)}``: the row lookups give, built in one copy, or None if not stored."""
        if self._dense:
            if not 0 <= key < self._slots:
                return None
            slot = key
        else:
            found = self.slot(key)
            if found is None:
                return None
            slot = found
        bit = slot * self._record_bits
        at = self._records + (bit >> 3)
        if self._in_word:
            record = _WORD(self._map, at)[0] >> (bit & 7) & self._record_mask
        else:
            record = int.from_bytes(self._map[at : at + self._record_bytes], "little") >> (bit & 7) & self._record_mask
        if not self._by_dictionary:
            if record >> self._first[0] & self._first[1] == self._absent:
                return None
            return self._figures(record, {"key": key})
        entry = self._tuples.get(record)
        if entry is None:
            entry = self._entry(key, record)
            if entry is None:
                return None
            if len(self._tuples) < TUPLES_KEPT:
                self._tuples[record] = entry
        found = entry.copy()
        found["key"] = key  # the entry holds the key it was first read for
        return found

    def row_reader(self) -> Callable[[int], dict[str, Any] | None]:
        """``row``, bound once for many calls (a table's probes). A dense table of dictionary codes read in one
        word, the usual case, gets a function that keeps the index's layout in locals, where ``row`` looks up
        nine attributes a call."""
        if not (self._dense and self._in_word and self._by_dictionary):
            return self.row
        data, records, width, mask, slots = self._map, self._records, self._record_bits, self._record_mask, self._slots
        kept, entry_of = self._tuples, self._entry

        def row(key: int) -> dict[str, Any] | None:
            if not 0 <= key < slots:
                return None
            bit = key * width
            record = _WORD(data, records + (bit >> 3))[0] >> (bit & 7) & mask
            entry = kept.get(record)
            if entry is None:
                entry = entry_of(key, record)
                if entry is None:
                    return None
                if len(kept) < TUPLES_KEPT:
                    kept[record] = entry
            found = entry.copy()
            found["key"] = key
            return found

        return row

    def _entry(self, key: int, code: int) -> dict[str, Any] | None:
        """Record dictionary entry ``code`` as a row of ``key``; None for the absent code."""
        h = self.header
        if code == h.absent:
            return None
        if code >= h.entries:
            raise self._damaged(f"key {key}: record code {code} of {h.entries}")
        bit = code * h.entry_bits
        at = self._entries + (bit >> 3)
        return self._figures(int.from_bytes(self._map[at : at + self._entry_bytes], "little") >> (bit & 7),
                             {"key": key})

    def _figures(self, record: int, out: dict[str, Any]) -> dict[str, Any]:
        """Each figure of a record (or of a record dictionary's entry), by name, added to ``out``."""
        for name, offset, mask, null, base, decode in self._fields:
            code = record >> offset & mask
            out[name] = None if code == null else base + code if decode is None else decode(code)
        return out

    def slot(self, key: int) -> int | None:
        """Where a key's record is: the key itself (dense), or its rank among the keys (sparse)."""
        if self._dense:
            return key if 0 <= key < self.header.slots else None
        keys = self._keys
        i = bisect.bisect_left(keys, key) if key >= 0 else len(keys)
        return i if i < len(keys) and keys[i] == key else None

    def probe_many(self, keys: Any) -> Any:
        """Many keys at once. A numpy array gets columns: ``{"found": bool array, figure: masked array, ...}``
        (masked where the figure is null or the key not stored; texts as object arrays), computed with
        numpy, millions of keys a second. Any other iterable gets a list of ``probe`` results."""
        if type(keys).__module__ == "numpy":
            if self._columns is None:
                from tablebase.probe.columns import (
                    Arrays,  # numpy, imported only for arrays
                )

                self._columns = Arrays(self)
            return self._columns.probe(keys)
        return [self.probe(int(key)) for key in keys]

    # -- the figures' values ---------------------------------------------------------------------
    def _decoder(self, figure: Figure) -> Any:
        """code -> value for one figure: arithmetic, or a dictionary entry read (and kept) when first asked."""
        if figure.encoding == OFFSET:
            base = figure.base
            return (lambda code: base + code == 1) if figure.type == BOOLEAN else (lambda code: base + code)
        if figure.encoding == RAW:
            return lambda code: _DOUBLE.unpack(code.to_bytes(8, "little"))[0]
        section = self.header.sections[figure.dictionary]
        count = self.entries(section)
        start = _payload(section)
        kept: list[Any] = [None] * count  # a dictionary is at most as long as the table
        read = self._reading(figure, section, start, count)

        def decode(code: int) -> Any:
            value = kept[code] if code < count else self._bad_code(figure, code, count)
            if value is None:
                value = kept[code] = read(code)
            return value

        return decode

    def _reading(self, figure: Figure, section: Section, start: int, count: int) -> Any:
        """Reads entry ``code`` of a figure's dictionary section."""
        data = self._map
        if section.kind == TEXTS:
            offsets = start
            text = start + 8 * (count + 1)
            end = section.offset + section.length

            def read_text(code: int) -> str:
                a, b = (_OFFSET.unpack_from(data, offsets + 8 * code)[0],
                        _OFFSET.unpack_from(data, offsets + 8 * code + 8)[0])
                if not a <= b <= end - text:
                    raise self._damaged(f"figure {figure.name}: text {code} at {a}..{b}")
                return bytes(data[text + a : text + b]).decode("utf-8", errors="replace")

            return read_text
        number = _DOUBLE if section.kind == FLOATS else _INT[bool(figure.flags & UNSIGNED)]
        if section.kind not in (FLOATS, INTEGERS) or section.length < 8 + 8 * count:
            raise self._damaged(f"figure {figure.name}: its dictionary")
        boolean = figure.type == BOOLEAN
        return lambda code: (number.unpack_from(data, start + 8 * code)[0] == 1) if boolean else \
            number.unpack_from(data, start + 8 * code)[0]

    def entries(self, section: Section) -> int:
        """The number of items a section says it holds."""
        return COUNT.unpack_from(self._map, section.offset)[0]

    def dictionary(self, figure: Figure) -> list[Any]:
        """Every value of a figure's dictionary, in code order (for numpy's columns and for verify)."""
        decode = self._decoders[self.figures.index(figure)]
        return [decode(code) for code in range(self.entries(self.header.sections[figure.dictionary]))]

    # -- checking and closing ---------------------------------------------------------------------
    def check(self) -> list[str]:
        """Each section's CRC-32 against the header's: what differs, one line each (empty if nothing)."""
        problems = []
        for s in self.header.sections:
            crc = 0
            for at in range(s.offset, s.offset + s.length, CHECK_BLOCK):
                crc = zlib.crc32(self._map[at : min(at + CHECK_BLOCK, s.offset + s.length)], crc)
            if crc != s.crc:
                problems.append(f"section {_SECTION_NAMES.get(s.kind, s.kind)} at byte {s.offset}: CRC-32 differs")
        return problems

    def close(self) -> None:
        if isinstance(self._keys, memoryview):
            self._keys.release()  # a mapping cannot close while a view of it is held
        self._columns = None
        self._map.close()

    def __enter__(self) -> ProbeIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def data(self) -> mmap.mmap:
        """The mapped file (for numpy's columns)."""
        return self._map

    def _damaged(self, what: str) -> StoreError:
        return StoreError(f"{self.path}: damaged probe index ({what}); tablebase verify checks it")

    def _bad_code(self, figure: Figure, code: int, count: int) -> Any:
        raise self._damaged(f"figure {figure.name}: code {code} of a dictionary of {count}")


_SECTION_NAMES = {KEYS: "keys", RECORDS: "records", RECORD_DICTIONARY: "record dictionary", INTEGERS: "integers",
                  FLOATS: "floats", TEXTS: "texts"}


def _payload(section: Section | None) -> int:
    """Where a section's items begin, after its count."""
    assert section is not None  # read_header checked that the layout's sections are there
    return section.offset + COUNT.size


class _LittleEndianKeys:
    """A sparse table's keys as a sequence, for hosts whose own byte order is not little-endian."""

    def __init__(self, data: mmap.mmap, start: int, width: int, count: int) -> None:
        self.data, self.start, self.width, self.count = data, start, width, count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int) -> int:
        at = self.start + i * self.width
        return int.from_bytes(self.data[at : at + self.width], "little")


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
