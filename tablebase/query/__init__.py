"""Reading built tables: DuckDB views for SQL, and point lookups by canonical key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tablebase.lazy import exports

if TYPE_CHECKING:
    from tablebase.query.database import Statistic, Tablebase, open_tablebase
    from tablebase.query.sql import Limits, QueryError

#: seconds a query may run unless told otherwise
DEFAULT_TIMEOUT = 60.0

# Each name is imported with its module when first used: ``tablebase.open`` reads the default above without
# importing DuckDB's side.
__getattr__ = exports(__name__, {"database": ("Statistic", "Tablebase", "open_tablebase"),
                                 "sql": ("Limits", "QueryError")})
__all__ = ["DEFAULT_TIMEOUT", "Limits", "QueryError", "Statistic", "Tablebase", "open_tablebase"]
