"""A table's rows read in place from its probe index, as lookups ask for them: the same answers as ``LoadedRows``.

``LoadedRows`` loads every row of a table into memory before the first
lookup; a table with a probe index (``probe.tbi`` and its segment files,
written by every build and by ``tablebase index``) needs none of that: the
index is memory-mapped and a lookup touches the pages of the keys it asks
for. What the index leaves out the game gives: a position's level
(``levels_of``), its notation (``spell``), and the figures a reader finds by
probing the children (``derive``: an impartial table's best move).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablebase.lazy import np, pa
from tablebase.probe import FILE_NAME, ProbeIndex
from tablebase.probe.format import BOOLEAN, FLOAT, TEXT
from tablebase.store.files import table_dir
from tablebase.store.loaded_rows import Spell
from tablebase.store.location import Folder, located
from tablebase.store.manifest import Manifest
from tablebase.store.placed import Place

Levels = Callable[["np.ndarray"], "np.ndarray"]
#: the figures found by probing the children, for many keys: (the index, keys) -> {figure: column}
Derive = Callable[[ProbeIndex, "np.ndarray"], dict[str, "pa.Array"]]


def probe_path(root: Place, manifest: Manifest) -> Path | ProbeIndex | None:
    """Where a table's probe index is, or None if the table has none (built before indexes, or not complete):
    a folder's path, or on an object store the index read through the local cache (``index_reads``)."""
    if FILE_NAME not in manifest.probe:
        return None
    location = located(root)
    if not isinstance(location, Folder):
        from tablebase.store.index_reads import stored_index  # only for an object store

        return stored_index(location, manifest)
    path = table_dir(location.root, manifest.table) / FILE_NAME
    return path if path.is_file() else None


class ProbedRows:
    """A table's rows from its probe index: ``row(key)`` and ``rows(keys)`` as ``LoadedRows`` gives them.

    ``path``: the index's directory, or the index opened (``probe_path``). ``columns``: the table's figures
    in the order of its rows (the index gives them in that order, with those it derives by the children where
    ``derive`` finds them)."""

    def __init__(self, path: Path | ProbeIndex, spell: Spell, levels: Levels, columns: list[str],
                 derive: Derive | None = None) -> None:
        self.index = path if isinstance(path, ProbeIndex) else ProbeIndex(path)
        self.spell, self.levels, self.derive = spell, levels, derive
        self.columns = [c for c in columns if c in self.index.names or c in self.index.by_children]

    @property
    def by_children(self) -> list[str]:
        """The figures the index leaves to be found by probing a position's children."""
        return self.index.by_children

    def row(self, key: int, level: int | None = None) -> dict[str, Any] | None:
        """One stored row (without its position; the figures found by the children None), or None. ``level``:
        the key's, where the caller knows it (a probe reads it from the position's text), else the game's
        ``levels`` give it."""
        found = self.index.row(key)
        if found is None:
            return None
        for name in self.by_children:  # in its place among the figures, for the kind to find
            found[name] = None
        found["level"] = int(self.levels(np.array([key], dtype=np.int64))[0]) if level is None else level
        return found

    def row_reader(self) -> Callable[[int, int], dict[str, Any] | None]:
        """``row`` of a key and its level, bound once for a table's probes (the index's ``row_reader``)."""
        read, later = self.index.row_reader(), self.by_children

        def row(key: int, level: int) -> dict[str, Any] | None:
            found = read(key)
            if found is not None:
                for name in later:  # in its place among the figures, for the kind to find
                    found[name] = None
                found["level"] = level
            return found

        return row

    def rows(self, keys: np.ndarray, with_positions: bool = True, levels: np.ndarray | None = None,
             wanted: set[str] | None = None) -> pa.Table:
        """Stored rows of many keys, in the order given; missing keys give null figures. ``levels``: the
        keys' levels where the caller read them (with the positions' texts), else the game's give them.
        ``wanted``: the columns asked for, where not all: a figure found by the children is found only if
        asked for."""
        keys = np.asarray(keys, dtype=np.int64)
        columns = self.index.probe_many(keys)
        missing = ~columns.found
        out: dict[str, pa.Array] = {"key": pa.array(keys)}
        if with_positions:
            out["position"] = self.spell(keys)
        asked = [n for n in self.by_children if wanted is None or n in wanted]
        derived = self.derive(self.index, keys) if self.derive is not None and asked else {}
        types = {f.name: f for f in self.index.figures}
        for name in self.columns:
            if name in types:
                out[name] = _arrow(types[name], columns)
            elif name in derived:
                out[name] = derived[name]
        if levels is None:
            levels = np.zeros(len(keys), dtype=np.int64)
            if columns.found.any():  # a key the table does not hold may have no level
                levels[columns.found] = self.levels(keys[columns.found])
        out["level"] = pa.array(np.asarray(levels, dtype=np.int64), mask=missing if missing.any() else None)
        return pa.table(out)

    def close(self) -> None:
        self.index.close()


def _arrow(figure: Any, columns: Any) -> pa.Array:
    """A figure's column as Arrow, in its type as a table's files hold it (texts dictionary-encoded)."""
    if figure.type == TEXT:
        codes = columns.codes(figure.name)
        mask = np.ma.getmaskarray(codes)
        indices = pa.array(codes.filled(0).astype(np.int32, copy=False), mask=mask if mask.any() else None)
        return pa.DictionaryArray.from_arrays(indices, pa.array(columns.dictionary(figure.name), pa.string()))
    values = columns[figure.name]
    kind = np.float64 if figure.type == FLOAT else np.bool_ if figure.type == BOOLEAN else \
        np.uint64 if figure.unsigned else np.int64
    mask = np.ma.getmaskarray(values)
    return pa.array(np.ma.getdata(values).astype(kind, copy=False), mask=mask if mask.any() else None)
