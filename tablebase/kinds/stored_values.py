"""A partizan table's stored values, read by key as lookups ask for them, each as a process-local value id."""

from __future__ import annotations

from typing import Any

from tablebase.cgt import Value, parse, sum_ids
from tablebase.cgt.form_figures import Figures
from tablebase.errors import StoreError
from tablebase.kinds.kind import StoredTable

SEARCHED_KEPT = 1 << 18  # positions and parts whose values lookups keep (about 2 KB each)


class StoredValues:
    """Every stored position's value of one table, as process-local value ids, read by key as asked for."""

    def __init__(self, table: StoredTable) -> None:
        if not table.manifest.files:
            raise StoreError(f"table {table.name} has no rows yet")
        self._table = table
        self._local: dict[str, int] = {}
        self._by_key: dict[int, int | None] = {}  # the stored positions lookups have read, within a bound
        self._figures: dict[int, Figures] = {}
        self._negatives: dict[int, int] = {}
        self.searched: dict[Any, int] = {}  # parts too large for the table, valued by search

    def value(self, key: int) -> int | None:
        """The local value id of a stored position, or None if it is not stored."""
        if key in self._by_key:
            return self._by_key[key]
        row = self._table.rows().row(key, self._table.keyed.level_of(key))
        g = None
        if row is not None:
            text = row["value"]
            g = self._local.get(text)
            if g is None:
                g = self._local[text] = parse(text).id  # each distinct value parsed once
        if len(self._by_key) >= SEARCHED_KEPT:
            self._by_key.clear()
        self._by_key[key] = g
        return g

    def signed(self, key: int, negated: bool) -> int:
        g = self.value(key)
        if g is None:
            raise StoreError(f"position key {key} should be stored but is not")
        return self.negative(g) if negated else g

    def negative(self, g: int) -> int:
        n = self._negatives.get(g)
        if n is None:
            n = self._negatives[g] = (-Value(g)).id
        return n

    @staticmethod
    def sum(parts: list[int]) -> int:
        return parts[0] if len(parts) == 1 else sum_ids(parts)

    def figures(self, g: int) -> Figures:
        f = self._figures.get(g)
        if f is None:
            f = self._figures[g] = Figures(g)
        return f
