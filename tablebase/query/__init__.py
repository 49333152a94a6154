"""Reading built tables: DuckDB views for SQL, and point lookups by canonical key."""

from tablebase.query.database import Tablebase, open_tablebase

__all__ = ["Tablebase", "open_tablebase"]
