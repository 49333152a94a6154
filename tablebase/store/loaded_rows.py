"""A table in memory for lookups from other programs: sorted keys and the stored figures.

Loaded once per table (positions are not kept: they are re-spelt from keys on
demand), then a point lookup is a binary search and a batch lookup a sorted
search followed by gathers, with no SQL on the way. DuckDB remains the path for
queries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.errors import DamagedTable, OverLimit
from tablebase.lazy import np, pa, pq
from tablebase.store.footers import MEMORY_CAP, checked_footers
from tablebase.store.manifest import Manifest
from tablebase.store.placed import Place, read_files, source

Spell = Callable[["np.ndarray"], "pa.Array"]  # keys -> their positions' notation


class LoadedRows:
    """Every stored row of one table, sorted by key, columns as numpy arrays."""

    def __init__(self, root: Place, table: str, manifest: Manifest, spell: Spell, budget: int = MEMORY_CAP) -> None:
        """Every row of the table loaded, if its files' footers say they hold the rows the manifest records and
        that those take at most ``budget`` bytes loaded (else DamagedTable, or OverLimit, in one line)."""
        self.table = table
        self.spell = spell
        names = sorted(manifest.files)
        if not names:
            self.keys = np.empty(0, dtype=np.int64)
            self.columns: dict[str, tuple[np.ndarray, list | None]] = {}
            return
        size = checked_footers(root, manifest)
        if size > budget:
            raise OverLimit(f"table {table} would take about {size / 2**20:,.0f} MiB loaded without a probe index, "
                            f"more than the memory limit of {budget / 2**20:,.0f} MiB: write its index (tablebase "
                            f"index --db {getattr(root, 'url', root)} {table}) or give a higher memory limit")
        try:
            schema = pq.read_schema(source(root, table, names[0], manifest.files[names[0]]))
        except (OSError, pa.ArrowException) as e:
            raise DamagedTable(f"cannot read {names[0]} of {table}: {str(e).splitlines()[0]}") from None
        if "key" not in schema.names:  # every other file is read for the columns of this one, or refused
            raise DamagedTable(f"table {table}: its file {names[0]} has no column 'key'")
        # Positions are not kept: they are re-spelt from keys when asked for.
        wanted = [f.name for f in schema if f.name != "position"]
        texts = [f.name for f in schema if f.name in wanted and _is_text(f.type)]
        dictionaries: dict[str, dict[str, int]] = {name: {} for name in texts}
        pieces: dict[str, list[np.ndarray]] = {name: [] for name in wanted}
        gaps: dict[str, list[np.ndarray]] = {name: [] for name in wanted}  # where a figure is null
        for name in names:
            data = read_files(root, table, {name: manifest.files[name]}, wanted, dictionary=texts)
            for column in wanted:
                values = data.column(column).combine_chunks()
                gaps[column].append(values.is_null().to_numpy(zero_copy_only=False))
                if column in dictionaries:
                    values = _codes(values, dictionaries[column])
                else:
                    values = values.fill_null(0).to_numpy(zero_copy_only=False) if values.null_count else \
                        values.to_numpy(zero_copy_only=False)
                pieces[column].append(values)
        keys = np.concatenate(pieces.pop("key"))
        order = np.argsort(keys, kind="stable")
        self.keys = np.ascontiguousarray(keys[order])
        self.columns = {}
        #: the rows where a column without a dictionary is null (columns with no nulls are left out)
        self.nulls: dict[str, np.ndarray] = {}
        for column, parts in pieces.items():
            known = dictionaries.get(column)
            self.columns[column] = (np.concatenate(parts)[order], list(known) if known is not None else None)
            null = np.concatenate(gaps[column])[order] if gaps.get(column) else None
            if known is None and null is not None and null.any():
                self.nulls[column] = null

    def find(self, keys: np.ndarray) -> np.ndarray:
        """Row numbers of keys, -1 where a key is not stored."""
        if not len(self.keys):
            return np.full(len(keys), -1, dtype=np.int64)
        if len(keys) > 64:
            # Searching in key order walks the index once, cache-friendly.
            order = np.argsort(keys, kind="stable")
            where = np.empty(len(keys), dtype=np.int64)
            where[order] = np.searchsorted(self.keys, keys[order])
        else:
            where = np.searchsorted(self.keys, keys)
        np.minimum(where, len(self.keys) - 1, out=where)
        return np.where(self.keys[where] == keys, where, -1)

    def row(self, key: int, level: int | None = None) -> dict[str, Any] | None:
        """One stored row (without its position), or None. ``level`` is not needed: the rows hold it."""
        i = int(np.searchsorted(self.keys, key))
        if i == len(self.keys) or self.keys[i] != key:
            return None
        out: dict[str, Any] = {"key": key}
        for name, (values, dictionary) in self.columns.items():
            v = values[i]
            if dictionary is None:
                out[name] = None if name in self.nulls and self.nulls[name][i] else v.item()
            else:
                out[name] = dictionary[v] if v >= 0 else None
        return out

    def row_reader(self) -> Callable[[int, int], dict[str, Any] | None]:
        """``row``, bound once (``ProbedRows.row_reader``'s twin)."""
        return self.row

    def rows(self, keys: np.ndarray, with_positions: bool = True, levels: np.ndarray | None = None,
             wanted: set[str] | None = None) -> pa.Table:
        """Stored rows of many keys, in the order given; missing keys give null figures. ``levels`` is not
        needed: the rows hold them; nor ``wanted``: every figure is at hand."""
        keys = np.asarray(keys, dtype=np.int64)
        where = self.find(keys)
        missing = where < 0
        any_missing = bool(missing.any())
        safe = np.where(missing, 0, where) if any_missing else where
        absent = missing if any_missing else None
        out: dict[str, pa.Array] = {"key": pa.array(keys)}
        if with_positions:
            out["position"] = self.spell(keys)
        for name, (values, dictionary) in self.columns.items():
            taken = values[safe]
            if dictionary is None:
                mask = absent
                if name in self.nulls:
                    mask = self.nulls[name][safe] | (absent if absent is not None else False)
                out[name] = pa.array(taken, mask=mask)
            else:
                nulls = taken < 0
                if any_missing:
                    nulls |= missing
                indices = pa.array(np.maximum(taken, 0), mask=nulls if nulls.any() else None)
                out[name] = pa.DictionaryArray.from_arrays(indices, pa.array(dictionary, pa.string()))
        return pa.table(out)


def _is_text(kind: pa.DataType) -> bool:
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _codes(values: pa.DictionaryArray, codes: dict[str, int]) -> np.ndarray:
    """A file's dictionary indices as codes of one table-wide dictionary (-1 for null)."""
    mapping = np.array([codes.setdefault(v, len(codes)) for v in values.dictionary.to_pylist()] + [-1], dtype=np.int32)
    indices = values.indices.fill_null(len(mapping) - 1).to_numpy(zero_copy_only=False)
    return mapping[indices]
