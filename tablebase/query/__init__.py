"""Reading built tables: DuckDB views for SQL, and point lookups by canonical key."""

from tablebase.query.database import Statistic, Tablebase, open_tablebase
from tablebase.query.sql import Limits, QueryError

__all__ = ["Limits", "QueryError", "Statistic", "Tablebase", "open_tablebase"]
