"""Verify's check of a table's probe index: the file as recorded, its checksums, and every record.

The file is checked against the manifest (there, its size, its sha256) and
each section against its CRC-32; then every stored row is probed, figure by
figure, and no key may be in the index that the rows do not hold. A
damaged index is reported as a damaged Parquet file is, one line each.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tablebase.errors import StoreError
from tablebase.lazy import np, pa
from tablebase.probe import FILE_NAME, ProbeIndex
from tablebase.probe.columns import Bits
from tablebase.probe.format import DENSE, DICTIONARY, KEYS, NONE, RECORDS
from tablebase.store import Manifest, sha256_of, table_dir

MAX_LISTED = 5  # mismatches named one by one; the count says how many more
SCAN = 1 << 22  # slots or keys read at a time when the whole index is walked

Problems = list[tuple[str, str]]  # (file, what)


class IndexCheck:
    """Fed each file of stored rows (``add``), it says what differs in the probe index (``problems``)."""

    def __init__(self, root: Path, manifest: Manifest, say: Callable[[str], None]) -> None:
        self.found: Problems = []
        self.index: ProbeIndex | None = None
        self.manifest = manifest
        self.mismatches = 0
        path = table_dir(root, manifest.table) / FILE_NAME
        record = manifest.probe.get(FILE_NAME)
        if record is None:
            if path.exists():
                self._problem("file is not in the manifest")
            elif manifest.complete:
                say("no probe index recorded (tablebase index writes one)")
            return
        if not path.is_file():
            self._problem("file is missing")
            return
        if path.stat().st_size != record["bytes"]:
            self._problem(f"{path.stat().st_size} bytes, the manifest says {record['bytes']}")
        if sha256_of(path) != record["sha256"]:
            self._problem("sha256 differs from the manifest")
        try:
            self.index = ProbeIndex(path)
        except StoreError as e:
            self._problem(str(e))
            return
        for what in self.index.check():
            self._problem(what)
        if self.index.header.positions != record["rows"]:
            self._problem(f"holds {self.index.header.positions:,} positions, the manifest says {record['rows']:,}")

    def _problem(self, what: str) -> None:
        self.found.append((FILE_NAME, what))

    def add(self, rows: pa.Table) -> None:
        """A file's stored rows, probed in the index figure by figure."""
        if self.index is None or not rows.num_rows:
            return
        keys = rows.column("key").to_numpy()
        got = self.index.probe_many(keys)
        missing = np.flatnonzero(~got["found"])
        self._mismatch(keys, missing, lambda i: "not in the index")
        figures = [name for name in rows.column_names if name not in ("key", "position", "level")]
        if set(figures) != set(self.index.names):
            self._problem(f"holds the figures {', '.join(self.index.names)}, the rows {', '.join(figures)}")
            self.index.close()
            self.index = None
            return
        for name in figures:
            stored, probed = rows.column(name), got[name]
            nulls = stored.is_null().to_numpy(zero_copy_only=False)
            values = _plain(stored)
            differ = (nulls != np.ma.getmaskarray(probed)) | (~nulls & (values != _plain_probed(probed)))
            differ &= got["found"]
            self._mismatch(keys, np.flatnonzero(differ), lambda i, name=name, probed=probed, stored=stored:
                           f"{name} {_shown(probed, i)} in the index, {stored[int(i)].as_py()!r} in the rows")

    def _mismatch(self, keys: np.ndarray, rows: np.ndarray, what: Callable[[int], str]) -> None:
        for i in rows[: max(0, MAX_LISTED - self.mismatches)]:
            self._problem(f"key {int(keys[i])}: {what(int(i))}")
        self.mismatches += len(rows)

    def problems(self) -> Problems:
        """What differs, once every stored row is added; the index is then closed."""
        if self.index is not None:
            self._walk(self.index)
            self.index.close()
        if self.mismatches > MAX_LISTED:
            self._problem(f"{self.mismatches - MAX_LISTED:,} more mismatches")
        return self.found

    def _walk(self, index: ProbeIndex) -> None:
        """The index holds no key but the rows': as many positions as the manifest, keys strictly ascending."""
        h = index.header
        positions = self.manifest.positions
        if h.layout == DENSE:
            bits = Bits(index.data, h.section(RECORDS))
            first = h.record_bits if h.records == DICTIONARY else h.figures[0].width if h.figures else 0
            offset = 0 if h.records == DICTIONARY else h.figures[0].offset if h.figures else 0
            held = 0
            for start in range(0, h.slots, SCAN):
                slots = np.arange(start, min(start + SCAN, h.slots), dtype=np.int64)
                codes = bits.fields(slots * h.record_bits + offset, first)
                held += len(slots) if h.absent == NONE else int((codes != np.uint64(h.absent)).sum())
        else:
            held = h.slots
            keys = np.frombuffer(index.data, dtype=f"<u{h.key_bytes}", count=h.slots, offset=h.section(KEYS).offset + 8)
            for start in range(0, h.slots, SCAN):
                part = keys[max(start - 1, 0) : start + SCAN]
                if not (part[1:] > part[:-1]).all():
                    self._problem("its keys are not in strictly ascending order")
                    break
        if held != positions:
            self._problem(f"holds {held:,} positions, the table {positions:,}")


def _plain(column: pa.ChunkedArray) -> np.ndarray:
    """A stored column as numpy values (texts as objects, floats as their bits, nulls as anything)."""
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        return column.to_numpy(zero_copy_only=False)
    if pa.types.is_floating(column.type):
        return column.fill_null(0).to_numpy(zero_copy_only=False).astype(np.float64).view(np.uint64)
    return column.fill_null(False if pa.types.is_boolean(column.type) else 0).to_numpy(zero_copy_only=False)


def _plain_probed(probed: np.ma.MaskedArray) -> np.ndarray:
    data = np.asarray(probed.data)
    return data.astype(np.float64).view(np.uint64) if np.issubdtype(data.dtype, np.floating) else data


def _shown(probed: np.ma.MaskedArray, i: int) -> str:
    return "null" if np.ma.getmaskarray(probed)[i] else repr(probed.data[i].item() if hasattr(probed.data[i], "item")
                                                            else probed.data[i])
