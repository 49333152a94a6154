"""Verify's check of a table's probe index: its files as recorded, every segment checked, and every record.

The directory and each segment file are checked against the manifest (there,
their size, their sha256) and every segment is read and checked (its CRC-32
and fields); then every stored row is probed, figure by figure, the figures
the index derives from others and those a reader finds by the children
(``derive``) included; last, every key of every segment is probed, so that
the index holds no position the rows do not. A damaged index is reported as
a damaged Parquet file is, one line each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.errors import StoreError
from tablebase.lazy import np, pa
from tablebase.probe import FILE_NAME, ProbeIndex
from tablebase.store import Manifest, table_dir
from tablebase.store.location import Folder, located
from tablebase.store.placed import Place, file_problems
from tablebase.store.probed import probe_path

MAX_LISTED = 5  # mismatches named one by one; the count says how many more
SCAN = 1 << 22  # keys probed at a time when every segment is walked

Problems = list[tuple[str, str]]  # (file, what)
Derive = Callable[[ProbeIndex, "np.ndarray"], dict[str, "pa.Array"]]


class IndexCheck:
    """Fed each file of stored rows (``add``), it says what differs in the probe index (``problems``)."""

    def __init__(self, root: Place, manifest: Manifest, say: Callable[[str], None],
                 derive: Derive | None = None) -> None:
        self.found: Problems = []
        self.index: ProbeIndex | None = None
        self.manifest, self.derive = manifest, derive
        self.mismatches = 0
        location = located(root)
        if FILE_NAME not in manifest.probe:
            if isinstance(location, Folder) and (table_dir(location.root, manifest.table) / FILE_NAME).exists():
                self._problem(FILE_NAME, "file is not in the manifest")
            elif manifest.complete:
                say("no probe index recorded (tablebase index writes one)")
            return
        for name, record in manifest.probe.items():  # (no footer to count rows by: they are not Parquet)
            for what in file_problems(location, manifest.table, name, record):
                self._problem(name, what)
        try:
            found = probe_path(location, manifest)
            if found is None:
                raise StoreError(f"no probe index at {location.where(manifest.table)}/{FILE_NAME}")
            self.index = found if isinstance(found, ProbeIndex) else ProbeIndex(found)
        except StoreError as e:
            self._problem(FILE_NAME, str(e))
            return
        for what in self.index.check():
            self._problem(FILE_NAME, what)
        if self.index.positions != manifest.probe[FILE_NAME]["rows"]:
            self._problem(FILE_NAME, f"holds {self.index.positions:,} positions, the manifest says "
                                     f"{manifest.probe[FILE_NAME]['rows']:,}")

    def _problem(self, file: str, what: str) -> None:
        self.found.append((file, what))

    def add(self, rows: pa.Table) -> None:
        """A file's stored rows, probed in the index figure by figure."""
        if self.index is None or not rows.num_rows:
            return
        keys = rows.column("key").to_numpy()
        try:
            got = self.index.probe_many(keys)
        except StoreError as e:
            self._close(str(e))
            return
        self._mismatch(keys, np.flatnonzero(~got.found), lambda i: "not in the index")
        figures = [name for name in rows.column_names if name not in ("key", "position", "level")]
        if set(figures) != set(self.index.names) | set(self.index.by_children):
            self._close(f"holds the figures {', '.join(self.index.names + self.index.by_children)}, the rows "
                        f"{', '.join(figures)}")
            return
        derived = self.derive(self.index, keys) if self.derive is not None and self.index.by_children else {}
        for name in figures:
            stored = rows.column(name)
            if name in derived:
                probed = np.ma.array(_plain(derived[name]), mask=derived[name].is_null().to_numpy(
                    zero_copy_only=False))
            elif name in self.index.by_children:
                continue  # no game to find it with
            else:
                probed = got[name]
            nulls = stored.is_null().to_numpy(zero_copy_only=False)
            values = _plain(stored)
            differ = (nulls != np.ma.getmaskarray(probed)) | (~nulls & (values != _plain_probed(probed)))
            differ &= got.found
            self._mismatch(keys, np.flatnonzero(differ), lambda i, name=name, probed=probed, stored=stored:
                           f"{name} {_shown(probed, i)} in the index, {stored[int(i)].as_py()!r} in the rows")

    def _close(self, what: str) -> None:
        self._problem(FILE_NAME, what)
        assert self.index is not None
        self.index.close()
        self.index = None

    def _mismatch(self, keys: np.ndarray, rows: np.ndarray, what: Callable[[int], str]) -> None:
        for i in rows[: max(0, MAX_LISTED - self.mismatches)]:
            self._problem(FILE_NAME, f"key {int(keys[i])}: {what(int(i))}")
        self.mismatches += len(rows)

    def problems(self) -> Problems:
        """What differs, once every stored row is added; the index is then closed."""
        if self.index is not None:
            self._walk(self.index)
            self.index.close()
        if self.mismatches > MAX_LISTED:
            self._problem(FILE_NAME, f"{self.mismatches - MAX_LISTED:,} more mismatches")
        return self.found

    def _walk(self, index: ProbeIndex) -> None:
        """The index holds no key but the rows': every key of every dense segment probed and every key a
        sparse one lists, as many found as the table has positions (every row's key was found)."""
        d, held = index.directory, 0
        try:
            for i in range(d.segments):
                segment = index.segment(i)
                if not segment.dense:
                    keys = np.asarray(segment.keys, dtype=np.int64) + segment.first
                    held += int(index.probe_many(keys).found.sum())
                    continue
                for start in range(segment.first, segment.last + 1, SCAN):
                    keys = np.arange(start, min(start + SCAN, segment.last + 1), dtype=np.int64)
                    held += int(index.probe_many(keys).found.sum())
        except StoreError as e:
            self._problem(FILE_NAME, str(e))
            return
        if held != self.manifest.positions:
            self._problem(FILE_NAME, f"holds {held:,} positions, the table {self.manifest.positions:,}")


def _plain(column: Any) -> np.ndarray:
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
