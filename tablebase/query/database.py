"""A folder of tables, opened for reading: SQL through DuckDB, lookups through the game's kind.

Every table is a DuckDB view of its own name over its Parquet files. Queries
run read-only: only SELECT and EXPLAIN statements are accepted, and DuckDB
itself may read nothing outside the folder and write nothing anywhere. Each
table's game is imported again from where its manifest says it came from;
lookups, probes and extra views are its kind's (``tablebase.kinds``).
"""

from __future__ import annotations

import os
import weakref
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from tablebase.errors import PositionError, StoreError, TablebaseError
from tablebase.games import KeyedForm, Texts
from tablebase.kinds import SOURCE_CHANGED, StoredTable, kind_named, kind_of, table_game
from tablebase.listing import LevelRows
from tablebase.store import Manifest, TableIndex, list_tables, read_level, rows_pattern

_ALLOWED = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}


class QueryError(TablebaseError):
    """SQL that DuckDB rejects, or that would change something."""


def quote_name(name: str) -> str:
    """A name as a DuckDB identifier, whatever it contains."""
    return '"' + name.replace('"', '""') + '"'


def named_queries() -> dict[str, str]:
    """The named statistics shipped in queries/*.sql, by file stem."""
    folder = resources.files("tablebase") / "queries"
    return {p.name[:-4]: p.read_text() for p in sorted(folder.iterdir(), key=lambda p: p.name) if p.name.endswith(".sql")}


class Tablebase:
    """The tables under one folder. Use :func:`tablebase.open` to get one."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise StoreError(f"no tablebase folder at {self.root}")
        self.manifests = {name: Manifest.load(self.root, name) for name in list_tables(self.root)}
        self._stored: dict[str, StoredTable] = {}
        self._indexes: dict[str, TableIndex] = {}
        self._con: duckdb.DuckDBPyConnection | None = None

    # -- catalogue ------------------------------------------------------------
    def tables(self) -> list[dict[str, Any]]:
        """Each table with its game, parameters, levels and row counts."""
        out = []
        for name, m in self.manifests.items():
            out.append(
                {
                    "table": name,
                    "game": m.game,
                    "origin": m.source.get("origin", ""),
                    "params": m.params,
                    "levels": f"{len(m.levels_done)}/{len(m.plan)}",
                    "positions": m.positions,
                    "bytes": m.bytes,
                    "complete": m.complete,
                }
            )
        return out

    def manifest(self, table: str) -> Manifest:
        if table not in self.manifests:
            raise StoreError(
                f"no table {table!r} in {self.root} (tables: {', '.join(self.manifests) or 'none'})"
            )
        return self.manifests[table]

    def stored(self, table: str) -> StoredTable:
        """The table as its kind reads it: its game, imported again from where the manifest says."""
        if table not in self._stored:
            m = self.manifest(table)
            game, source = table_game(m)
            layout = m.layout()

            def texts(level: int) -> LevelRows:  # a plain game's notation, from the table's own rows
                return LevelRows(texts=read_level(self.root, table, layout, level, ["position"])
                                 .column("position").combine_chunks())

            kind = kind_of(game).listed(m.listing.get("sizes"), m.listing.get("move_names"), texts,
                                        m.listing.get("max_moves", 0))
            self._stored[table] = StoredTable(self.root, table, m, kind, lambda: self.index(table),
                                              changed=source.digest != m.source.get("digest"))
        return self._stored[table]

    def game(self, table: str) -> KeyedForm:
        """The table's game, in keyed form."""
        return self.stored(table).game

    # -- SQL ------------------------------------------------------------------
    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            con = duckdb.connect(":memory:")
            for name, m in self.manifests.items():
                if not m.files:
                    continue
                files = rows_pattern(self.root, name)
                position = "position"
                if m.compact:
                    position = self._spell_positions(con, name)
                # Every file holds a level column; DuckDB skips files and row groups by its statistics.
                con.execute(
                    f"CREATE VIEW {quote_name(name)} AS SELECT key, {position} AS position, level, "
                    f"* EXCLUDE (key, {'' if m.compact else 'position, '}level) "
                    f"FROM read_parquet('{files}')"
                )
                for artifact in kind_named(m.kind).artifacts:  # files beside the rows (a values table)
                    for statement in artifact.views(self.root, name, m):
                        con.execute(statement)
            con.execute(f"SET allowed_directories = ['{self.root.resolve()}/']")
            con.execute("SET enable_external_access = false")
            con.execute("SET lock_configuration = true")
            # Closed at exit at the latest: a connection left open with Python
            # functions in it makes the interpreter's shutdown complain.
            weakref.finalize(self, con.close)
            self._con = con
        return self._con

    def _spell_positions(self, con: duckdb.DuckDBPyConnection, table: str) -> str:
        """Register a function that spells a compact table's positions from their keys; return its call."""
        kind = self.stored(table).kind

        def spell(keys: pa.Array) -> pa.Array:
            keys = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
            return kind.spell(keys.to_numpy(zero_copy_only=False))

        function = f"position_of_{table}"
        con.create_function(function, spell, ["BIGINT"], "VARCHAR", type="arrow", side_effects=False)
        return f"{quote_name(function)}(key)"

    def sql(self, query: str) -> pa.Table:
        """Run one read-only SQL statement (SELECT or EXPLAIN) and return an Arrow table."""
        con = self.connection.cursor()  # one per call: DuckDB refuses two calls at once on one connection
        try:
            statements = con.extract_statements(query)
        except duckdb.Error as e:
            raise QueryError(f"SQL error: {_first_line(e)}") from None
        if len(statements) != 1:
            raise QueryError(f"give exactly one SQL statement, got {len(statements)}")
        if statements[0].type not in _ALLOWED:
            raise QueryError(
                f"only SELECT queries are allowed (tables are read-only), got {statements[0].type.name}"
            )
        try:
            result = con.sql(query)
            if result is None:
                return pa.table({})
            return result.to_arrow_table() if hasattr(result, "to_arrow_table") else result.arrow()
        except duckdb.Error as e:
            raise QueryError(f"SQL error: {_first_line(e)}") from None

    def stats(self, table: str) -> list[tuple[str, pa.Table]]:
        """The named statistics of queries/*.sql that apply to this table, plus storage figures."""
        m = self.manifest(table)
        if not m.files:
            raise StoreError(f"table {table} has no rows yet")
        columns = set(self.sql(f"SELECT * FROM {quote_name(table)} LIMIT 0").column_names)
        out = []
        for name, text in named_queries().items():
            needs = _header(text, "needs")
            if needs and not set(needs.split()) <= columns:
                continue
            title = _header(text, "title") or name
            out.append((title, self.sql(text.replace("{table}", quote_name(table)))))
        # Files beside the rows count too (a partizan table's values table).
        beside = [f for a in kind_named(m.kind).artifacts for f in a.files(m).values()]
        values = sum(f["bytes"] for f in beside)
        total = m.bytes + values
        storage = pa.table(
            {
                "positions": [m.positions],
                "files": [len(m.files) + len(beside)],
                "row_bytes": [m.bytes],
                "values_bytes": [values],
                "bytes_per_position": [round(total / max(m.positions, 1), 3)],
                "bits_per_position": [round(8 * total / max(m.positions, 1), 2)],
            }
        )
        out.append(("storage on disk", storage))
        return out

    # -- lookups ----------------------------------------------------------------
    def index(self, table: str) -> TableIndex:
        """The table's rows in memory (loaded on first use) for fast lookups."""
        if table not in self._indexes:
            kind = self.stored(table).kind
            self._indexes[table] = TableIndex(self.root, table, self.manifest(table), kind.spell)
        return self._indexes[table]

    def lookup(self, table: str, position: str) -> dict[str, Any]:
        """The stored row of a position, with every legal move and its child's stored figures, best first.

        The first lookup of a table loads it in memory (see :meth:`index`).
        """
        stored = self.stored(table)
        return _warned(stored, stored.lookup(position))

    def probe(self, table: str, position: str) -> dict[str, Any]:
        """The stored figures of one position, from memory: the fast point lookup.

        A partizan position may be stored as its mirror image (a transpose is
        the negative) or be a sum of stored regions: it is answered by lookup.
        """
        stored = self.stored(table)
        return _warned(stored, stored.probe(position))

    def lookup_many(self, table: str, positions: Any, with_positions: bool = True) -> pa.Table:
        """Stored rows of many positions (a list of str, an Arrow array or a DataFrame column), in order.

        Positions are read by the game's compiled reader and found by binary
        search in memory; a malformed position raises PositionError naming it.
        """
        stored = self.stored(table)
        try:
            texts = Texts.of(positions)
        except (ValueError, TypeError, pa.ArrowException) as e:
            raise PositionError(f"{table}: positions must be text: {e}") from None
        return stored.lookup_many(texts, with_positions)

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    def __enter__(self) -> "Tablebase":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _warned(stored: StoredTable, result: dict[str, Any]) -> dict[str, Any]:
    """A lookup's result, with a warning if the game's rules may no longer be the table's."""
    if stored.changed:
        result["warning"] = SOURCE_CHANGED
    return result


def _header(text: str, field: str) -> str | None:
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(f"-- {field}:"):
            return line.split(":", 1)[1].strip()
    return None


def _first_line(error: Exception) -> str:
    return " ".join(str(error).split("\n")[0].split())


def open_tablebase(root: str | os.PathLike) -> Tablebase:
    """Open the tables built under ``root`` for SQL and lookups."""
    return Tablebase(root)
