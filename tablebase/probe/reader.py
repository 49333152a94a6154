"""Probing a table's index by memory-mapping it: the standard library only for one probe.

Opening reads the directory (``probe.tbi``, small) and checks it whole; a
probe then finds its key's segment by a binary search over the segments'
first keys, maps and checks that segment the first time it is touched, and
reads the record's code and the tuple it names, decoded once and kept.
``probe_many`` of a numpy array answers in columns with numpy (``columns.py``),
which it imports then; ``IndexFolder`` keeps a bounded number of indexes open.
"""

from __future__ import annotations

import bisect
import mmap
import os
import stat
import sys
import zlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from tablebase.errors import PositionError, StoreError
from tablebase.probe.format import (
    BY_CHILDREN,
    DERIVED,
    FILE_NAME,
    SEGMENTS_FOLDER,
    Directory,
    Figure,
    damaged,
    read_directory,
    read_segment,
)
from tablebase.probe.segment import CheckedSegment, assembler

CHECK_BLOCK = 1 << 24  # bytes of a segment checksummed at a time by ``check``
# Segments of an index kept read (a few KiB each): every segment of Chomp 17x17, about half of 18x18.
SEGMENTS_KEPT = 1 << 14


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
        self._segments: OrderedDict[int, CheckedSegment] = OrderedDict()
        # Segments whose CRC-32 was found right: one let go of (past SEGMENTS_KEPT) is read again without it, so
        # that random probes over more segments than are kept do not check a segment's bytes at every probe.
        self._crc_checked = bytearray(d.segments)
        self._assemble = assembler(d.figures, self.figures)
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

    def segment(self, i: int) -> CheckedSegment:
        """Segment ``i``, read and checked (its CRC-32 the first time), then kept while it is among the
        ``SEGMENTS_KEPT`` last read."""
        found = self._segments.get(i)
        if found is not None:
            return found
        d = self.directory
        last, offset, length, file, crc = d.entry(self._data, i)
        data = self.file(file)
        if offset + length > len(data):
            raise damaged(self.path, f"segment {i} at {offset:,} of {d.names[file]}, which has {len(data):,} bytes")
        if not self._crc_checked[i]:
            if zlib.crc32(data[offset : offset + length]) != crc:
                raise damaged(self.path, f"segment {i} in {d.names[file]}: its CRC-32 differs")
            self._crc_checked[i] = 1
        header = read_segment(data, offset, length, d.first(self._data, i), last, d.stored,
                              os.path.join(self._folder, d.names[file]))
        found = CheckedSegment(data, header, last, d.stored, self._assemble, self.path)
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


class IndexFolder:
    """The probe indexes of a folder of tables, at most ``max_open`` of them open at once, as python-chess
    keeps Syzygy files: a folder of many tables never holds them all.

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
