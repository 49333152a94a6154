"""A folder of tables, opened for reading: SQL through DuckDB, lookups through the game's key.

Every table is a DuckDB view of its own name over its Parquet files. Queries
run read-only: only SELECT and EXPLAIN statements are accepted, and DuckDB
itself may read nothing outside the folder and write nothing anywhere.
"""

from __future__ import annotations

import os
import weakref
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from tablebase.errors import PositionError, StoreError, TablebaseError
from tablebase.games import Game, make_game
from tablebase.query.index import TableIndex, texts_of
from tablebase.query.lookup import lookup_position
from tablebase.solve.rows import text_array
from tablebase.store import Manifest, list_tables, table_dir
from tablebase.store.values import merged_files

_ALLOWED = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}


class QueryError(TablebaseError):
    """SQL that DuckDB rejects, or that would change something."""


def _quote(name: str) -> str:
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
        self._games: dict[str, Game] = {}
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

    def game(self, table: str) -> Game:
        if table not in self._games:
            m = self.manifest(table)
            self._games[table] = make_game(m.game, m.params)
        return self._games[table]

    # -- SQL ------------------------------------------------------------------
    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            con = duckdb.connect(":memory:")
            for name, m in self.manifests.items():
                if not m.files:
                    continue
                files = str(table_dir(self.root, name) / "level=*" / "part-*.parquet")
                position = "position"
                if not m.position_text:
                    position = self._spell_positions(con, name)
                con.execute(
                    f"CREATE VIEW {_quote(name)} AS SELECT key, {position} AS position, level, "
                    f"* EXCLUDE (key, {'position, ' if m.position_text else ''}level) "
                    f"FROM read_parquet('{files}', hive_partitioning = true)"
                )
                values = merged_files(m.values)  # partizan tables, once their values table is merged
                if values:
                    con.execute(_values_view(name, [table_dir(self.root, name) / f for f in values]))
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
        game = self.game(table)

        def spell(keys: pa.Array) -> pa.Array:
            keys = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
            return text_array(game.format_positions(keys.to_numpy(zero_copy_only=False)))

        function = f"position_of_{table}"
        con.create_function(function, spell, ["BIGINT"], "VARCHAR", type="arrow", side_effects=False)
        return f"{_quote(function)}(key)"

    def sql(self, query: str) -> pa.Table:
        """Run one read-only SQL statement (SELECT or EXPLAIN) and return an Arrow table."""
        con = self.connection
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
        columns = set(self.sql(f"SELECT * FROM {_quote(table)} LIMIT 0").column_names)
        out = []
        for name, text in named_queries().items():
            needs = _header(text, "needs")
            if needs and not set(needs.split()) <= columns:
                continue
            title = _header(text, "title") or name
            out.append((title, self.sql(text.replace("{table}", _quote(table)))))
        # Partizan tables keep their canonical forms in a values table beside the rows.
        values = sum(f["bytes"] for f in m.values.get("files", {}).values())
        total = m.bytes + values
        storage = pa.table(
            {
                "positions": [m.positions],
                "files": [len(m.files) + len(m.values.get("files", {}))],
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
            self._indexes[table] = TableIndex(self.root, table, self.manifest(table), self.game(table))
        return self._indexes[table]

    def lookup(self, table: str, position: str) -> dict[str, Any]:
        """The stored row of a position, with every legal move and its child's stored figures.

        The first lookup of a table loads it in memory (see :meth:`index`).
        """
        if self.game(table).kind == "partizan":
            # Sums of regions, transposes and searches: see tablebase.query.partizan.
            return lookup_position(self.root, table, self.manifest(table), self.game(table), position)
        index = self.index(table)
        game = self.game(table)

        def fetch(keys: np.ndarray) -> dict[int, dict]:
            stored = keys[index.find(keys) >= 0]
            return {row["key"]: row for row in index.rows(stored).to_pylist()}

        return lookup_position(self.root, table, self.manifest(table), game, position, fetch)

    def probe(self, table: str, position: str) -> dict[str, Any]:
        """The stored figures of one position, from memory: the fast point lookup.

        A partizan position may be stored as its mirror image (a transpose is
        the negative) or be a sum of stored regions: it is answered by lookup.
        """
        game = self.game(table)
        if game.kind == "partizan":
            return {k: v for k, v in self.lookup(table, position).items() if not k.endswith("moves")}
        key = game.parse(position)
        row = self.index(table).row(key)
        if row is None:
            raise PositionError(f"{table}: position {position!r} is not stored (this table holds {game.bounds})")
        return row

    def lookup_many(self, table: str, positions: Any, with_positions: bool = True) -> pa.Table:
        """Stored rows of many positions (a list of str, an Arrow array or a DataFrame column), in order.

        Positions are read by the game's compiled reader and found by binary
        search in memory; a malformed position raises PositionError naming it.
        """
        game = self.game(table)
        if game.kind == "partizan":
            rows = [self.probe(table, p) for p in (positions.to_pylist() if hasattr(positions, "to_pylist") else positions)]
            return pa.Table.from_pylist(rows)
        try:
            texts = texts_of(positions)
        except (ValueError, TypeError, pa.ArrowException) as e:
            raise PositionError(f"{table}: positions must be text: {e}") from None
        return self.index(table).rows(game.parse_many(texts), with_positions)

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    def __enter__(self) -> "Tablebase":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _values_view(table: str, files: list[Path]) -> str:
    """``<table>_values``: the values table (tablebase.store.values), each canonical form once.

    ``number`` repeats the text of a number, as the figures of a value used to.
    """
    listed = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files)
    return (
        f"CREATE VIEW {_quote(table + '_values')} AS SELECT id, value, left_ids, right_ids, is_number, "
        "CASE WHEN is_number THEN value END AS number, mean, temperature, left_stop, right_stop, birthday, "
        f"positions, first_level FROM read_parquet([{listed}])"
    )


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
