"""tablebase: build, store and query position databases of combinatorial games.

    >>> import tablebase
    >>> tb = tablebase.open("tb")                 # a folder built by `tablebase build`
    >>> tb.lookup("chomp_4x4", "4 4 3 1")["outcome"]
    >>> tb.sql("SELECT count(*) FROM chomp_4x4 WHERE outcome = 'P'")
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tablebase.query import Tablebase

from tablebase.version import VERSION as __version__


def open(root: "str | os.PathLike") -> "Tablebase":  # noqa: A001 - mirrors the built-in on purpose
    """Open the tables under ``root`` for SQL (:meth:`Tablebase.sql`) and lookups."""
    from tablebase.query import Tablebase

    return Tablebase(root)


def __getattr__(name: str):
    if name == "Tablebase":
        from tablebase.query import Tablebase

        return Tablebase
    raise AttributeError(name)


__all__ = ["Tablebase", "__version__", "open"]
