"""Files a table has beside its rows, as a reader sees them: their names, and SQL's views over them.

The one such artifact today is a partizan table's values table
(``values.py``). The query layer shows every artifact alike, through this
interface, so it names no kind; how an artifact is made, merged and checked
is the building half's (``tablebase.builders.artifact_build``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from tablebase.store import Manifest


class Artifact(ABC):
    """Files a table has beside its rows (the values table of partizan tables), as SQL reads them."""

    @abstractmethod
    def view_names(self, table: str) -> list[str]:
        """The names of its views: no other table may be called so (the build refuses such a name)."""

    @abstractmethod
    def views(self, table: str, manifest: Manifest, source: Callable[[list[str]], str]) -> list[tuple[str, str]]:
        """(view name, DuckDB statement that makes it) of each of its views; ``source(names)`` is the SQL
        that reads exactly those files of the table (names relative to its folder), quoted as it must be."""

    @abstractmethod
    def files(self, manifest: Manifest) -> dict[str, dict]:
        """Its finished files (name -> rows, bytes, sha256), for the table's storage figures."""
