"""A table's rows in key order, in bounded memory: a merge of its files, each read a batch at a time.

A file holds its rows by level, then by key. A file of one level (a level
cut in parts, or a level alone) is therefore already in key order and is
read a batch at a time; a run of small levels (at most a partition's rows,
which the memory plan let a worker hold) is read whole and sorted. A file
is opened only once the merge reaches its least key (from its Parquet
statistics) and let go once read, so the parts of a level are read one
after another and only the files whose keys overlap are open together:
for Chomp about one per level, whatever the table's size.

Each round emits every buffered row up to the *horizon*, the smallest key
that some open file or some file not yet opened may still be below: the
least of the last buffered key of each open file with more to read, and
of the first key of the next file to open.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tablebase.errors import StoreError
from tablebase.lazy import np, pa, pq

BATCH = 1 << 16  # rows read at a time by a pass over the files
MERGE_BATCH = 1 << 12  # rows read at a time from each file being merged: about one file a level is open, and
# Arrow holds about 70 bytes a row of it for each (1.3 MiB a file at 1 << 14: 200 MiB for Chomp 15x15)

Encode = Callable[[pa.RecordBatch], np.ndarray]  # a batch of rows (key first) -> one payload row per row


def batches(path: Path, columns: list[str], texts: list[str], size: int = BATCH,
            groups: list[int] | None = None) -> Iterator[pa.RecordBatch]:
    """A file's rows (of these row groups: all by default), a batch at a time, text columns as
    dictionaries; a damaged file is a StoreError."""
    try:
        reader = pq.ParquetFile(path, read_dictionary=texts)
        # One thread: with a thread pool per open file, a merge of a hundred files reads five times slower.
        yield from reader.iter_batches(batch_size=size, columns=columns, row_groups=groups, use_threads=False)
    except (OSError, pa.ArrowException) as e:
        raise StoreError(f"cannot read {path}: {str(e).splitlines()[0]}") from None


@dataclass(frozen=True)
class Source:
    """One file of a table's rows: where it is, whether it holds one level, its rows, least and greatest key,
    and each row group's least and greatest key; ``within`` restricts it to a range of keys."""

    path: Path
    one_level: bool
    rows: int
    least: int
    most: int
    groups: tuple[tuple[int, int], ...] = ()  # (least, greatest) key of each row group, if known
    keys: tuple[int, int] | None = None  # only the rows with keys in [start, stop), if restricted

    @classmethod
    def of(cls, path: Path, one_level: bool) -> Source:
        """From the file's Parquet statistics (or, without them, its keys)."""
        try:
            meta = pq.ParquetFile(path).metadata
            column = meta.schema.names.index("key")
            stats = [meta.row_group(g).column(column).statistics for g in range(meta.num_row_groups)]
            if all(s is not None and s.has_min_max for s in stats):
                groups = tuple((int(s.min), int(s.max)) for s in stats)
                least = min((g[0] for g in groups), default=2**63 - 1)
                most = max((g[1] for g in groups), default=-1)
                return cls(path, one_level, meta.num_rows, least, most, groups)
            keys = pq.read_table(path, columns=["key"]).column("key").to_numpy()
        except (OSError, pa.ArrowException, ValueError) as e:
            raise StoreError(f"cannot read {path}: {str(e).splitlines()[0]}") from None
        return cls(path, one_level, len(keys), int(keys.min(initial=2**63 - 1)), int(keys.max(initial=-1)))

    def within(self, start: int, stop: int) -> Source | None:
        """This file restricted to its rows with keys in [start, stop): only the row groups that may hold
        such keys are read (all of them where their keys are not known); None if it has none."""
        spans = [self.groups[g] for g in self._chosen(start, stop)] if self.groups else \
            [(self.least, self.most)] if self.most >= start and self.least < stop else []
        if not spans:
            return None
        return Source(self.path, self.one_level, self.rows, max(min(a for a, _ in spans), start),
                      min(max(b for _, b in spans), stop - 1), self.groups, (start, stop))

    def _chosen(self, start: int, stop: int) -> list[int]:
        """The row groups that may hold keys in [start, stop)."""
        return [g for g, (least, most) in enumerate(self.groups) if most >= start and least < stop]

    def _runs(self, start: int, stop: int) -> list[tuple[bool, list[int]]]:
        """The row groups to read for [start, stop), in runs of groups wholly inside it (False) or not."""
        runs: list[tuple[bool, list[int]]] = []
        for g in self._chosen(start, stop):
            edge = self.groups[g][0] < start or self.groups[g][1] >= stop
            if runs and runs[-1][0] == edge:
                runs[-1][1].append(g)
            else:
                runs.append((edge, [g]))
        return runs

    def batches(self, columns: list[str], texts: list[str], size: int = BATCH) -> Iterator[pa.RecordBatch]:
        """The file's rows (its rows in its range of keys, if restricted), a batch at a time (``batches``):
        only the rows of a row group that its keys do not put wholly inside the range are sifted."""
        if self.keys is None:
            yield from batches(self.path, columns, texts, size)
            return
        start, stop = self.keys
        runs: list[tuple[bool, list[int] | None]] = [(True, None)] if not self.groups else [*self._runs(start, stop)]
        for edge, groups in runs:
            for batch in batches(self.path, columns, texts, size, groups):
                if edge:
                    keys = batch.column("key").to_numpy(zero_copy_only=False)
                    batch = batch.filter(pa.array((keys >= start) & (keys < stop)))
                if batch.num_rows:
                    yield batch


class _Open:
    """A file being merged: its buffered rows (keys and payloads, by key), how far they are taken."""

    def __init__(self, source: Source, columns: list[str], texts: list[str], encode: Encode) -> None:
        self.encode = encode
        if source.one_level:
            self.more: Iterator[pa.RecordBatch] | None = source.batches(columns, texts, MERGE_BATCH)
            self.keys, self.payload = np.empty(0, dtype=np.int64), None
        else:  # a run of small levels: read whole, sorted by key
            read = list(source.batches(columns, texts))
            keys, payload = self._encoded(read)
            order = np.argsort(keys, kind="stable")
            self.more, self.keys, self.payload = None, keys[order], payload[order]
        self.taken = 0
        self.path = source.path

    def _encoded(self, read: list[pa.RecordBatch]) -> tuple[np.ndarray, np.ndarray]:
        keys = [b.column("key").to_numpy(zero_copy_only=False).astype(np.int64, copy=False) for b in read]
        payload = [self.encode(b) for b in read]
        if not read:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint64)
        return np.concatenate(keys), np.concatenate(payload)

    def refill(self) -> bool:
        """Read the next batch once the buffer is taken; False when the file is done."""
        while self.taken == len(self.keys):
            batch = next(self.more, None) if self.more is not None else None
            if batch is None:
                self.more = None
                return False
            self.keys, self.payload = self._encoded([batch])
            self.taken = 0
            if len(self.keys) > 1 and not (self.keys[1:] > self.keys[:-1]).all():
                raise StoreError(f"{self.path}: a level's keys are not in ascending order")
        return True

    @property
    def first(self) -> int:
        return int(self.keys[self.taken])


def in_key_order(sources: list[Source], columns: list[str], texts: list[str],
                 encode: Encode) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The rows of every file as (keys, payloads) batches, keys ascending across batches.

    ``columns`` are read from each file (``key`` first) and each batch turned
    into payloads by ``encode``; ``texts`` are read as dictionaries.
    """
    waiting = deque(sorted(sources, key=lambda s: s.least))
    active: list[_Open] = []
    while True:
        low = min((a.first for a in active), default=None)
        while waiting and (low is None or waiting[0].least <= low):
            opened = _Open(waiting.popleft(), columns, texts, encode)
            if opened.refill():
                active.append(opened)
                low = opened.first if low is None else min(low, opened.first)
        if not active:
            if not waiting:
                return
            continue
        horizon = min((int(a.keys[-1]) for a in active if a.more is not None), default=2**63 - 1)
        if waiting:
            horizon = min(horizon, waiting[0].least - 1)
        keys, payload = [], []
        for a in active:
            end = int(np.searchsorted(a.keys, horizon, side="right"))
            if end > a.taken:
                keys.append(a.keys[a.taken : end])
                payload.append(a.payload[a.taken : end])
                a.taken = end
        active = [a for a in active if a.refill()]
        if len(keys) == 1:
            yield keys[0], payload[0]
        elif keys:
            joined = np.concatenate(keys)
            order = np.argsort(joined, kind="stable")
            yield joined[order], np.concatenate(payload)[order]


def in_key_blocks(sources: list[Source], columns: list[str], texts: list[str], encode: Encode,
                  block: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The rows of every file as (keys, payloads) pieces, each inside one block of ``block`` keys (from
    key 0), the blocks ascending and the keys ascending within a piece, but the pieces of a block in no
    order: what a dense index's records need, which are placed by key a block at a time. It skips the
    merge's sorting of every row, most of the time ``in_key_order`` takes."""
    waiting = deque(sorted(sources, key=lambda s: s.least))
    active: list[_Open] = []
    start = 0
    while waiting or active:
        if not active:
            start = max(start, waiting[0].least // block * block)
        end = start + block
        while waiting and waiting[0].least < end:
            opened = _Open(waiting.popleft(), columns, texts, encode)
            if opened.refill():
                active.append(opened)
        left = []
        for a in active:
            while True:
                stop = a.taken + int(np.searchsorted(a.keys[a.taken:], end))
                if stop > a.taken:
                    yield a.keys[a.taken : stop], a.payload[a.taken : stop]
                    a.taken = stop
                if stop < len(a.keys):
                    left.append(a)  # more of this file in later blocks
                    break
                if not a.refill():
                    break
        active, start = left, end
