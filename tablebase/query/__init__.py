"""Reading built tables: DuckDB views for SQL, and point lookups by canonical key."""

from tablebase.query.database import Tablebase, open_tablebase
from tablebase.query.sql import Limits, QueryError

__all__ = ["Limits", "QueryError", "Tablebase", "open_tablebase"]
