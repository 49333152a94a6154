"""A folder of tables, opened for reading: SQL through DuckDB, lookups through the game's kind.

A folder is data (docs/security.md): opening it runs no code from it. Every
table is a DuckDB view (``views.py``), queried read-only, sandboxed and bounded
(``sql.py``); a table's game, which lookups and a compact table's positions
need, is one this reader trusts (``kinds.Trust``). A sub-folder that is not a
readable table is set aside (``unreadable``), and the others still open.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any, cast

from tablebase.errors import PositionError, StoreError, TablebaseError, TableNotFound, UsageError
from tablebase.games import KeyedForm, Texts
from tablebase.games.base import position_text
from tablebase.jit import compile_if_installed
from tablebase.kinds import (
    SOURCE_CHANGED,
    Bounds,
    StoredTable,
    Trust,
    batch_fits,
    kind_of,
    known_kind,
)
from tablebase.kinds.misere_sums import answers_of
from tablebase.lazy import pa
from tablebase.listed import LevelRows
from tablebase.query.sql import DEFAULT_TIMEOUT, Limits, QueryError, Session
from tablebase.query.statistics import (
    FIGURES_SHOWN,
    QUOTIENT_SHOWN,
    named_queries,
    quotient_figures,
    table_statistics,
)
from tablebase.query.views import as_view, make_views, quote_name, view_files, view_schema
from tablebase.results import Line, Lookup, Probe, Statistic
from tablebase.store import LoadedRows, Manifest, list_tables, read_level
from tablebase.store.location import Folder, Location
from tablebase.store.probed import ProbedRows, probe_path

__all__ = ["DEFAULT_TIMEOUT", "QueryError", "Tablebase", "named_queries", "open_tablebase", "quote_name"]
Rows = LoadedRows | ProbedRows
Position = str | int | tuple[int, ...] | list[int]  # text, or a game's own numbers where its notation is numbers
_DEFAULT: Any = object()  # a keyword left out: the Tablebase's own limit
COMPILED_FROM = 10_000  # positions of a batch from which the game's functions are compiled (where numba is)


class Tablebase:
    """The tables under one folder. Use :func:`tablebase.open` to get one.

    ``games``: references of games to trust for this folder's tables (a file
    ``path/to/file.py:Class``, ``module:Class``, or a name), loaded now;
    each serves the tables whose manifest names a game of its name and
    records its digest. Built-in games and installed plugins need no naming.
    ``memory_limit`` (bytes, or "4GiB"), ``threads`` and ``timeout`` (seconds
    a statement may run, None for no limit) bound SQL; ``temp_directory`` is
    where a private folder for DuckDB's spills is made and removed again.
    """

    def __init__(self, root: str | os.PathLike | Location, games: Iterable[str] = (), *,
                 memory_limit: int | str | None = None, threads: int | None = None,
                 timeout: float | None = DEFAULT_TIMEOUT, temp_directory: str | os.PathLike | None = None,
                 storage_options: Mapping[str, Any] | None = None) -> None:
        #: where the tables are: a folder, or an object store (``s3://BUCKET/PREFIX``, ``storage_options``)
        self._location = _place(root, storage_options)
        #: the folder's path or the store's URL, as the user gave it
        self.root = self._location.url
        if isinstance(self._location, Folder):
            if not Path(self._location.root).is_dir():
                raise StoreError(f"no tablebase folder at {self.root}")
        else:
            self._location.check()
        self._limits = Limits.of(memory_limit, threads, timeout, temp_directory)
        #: what a lookup may search beyond a table (a board larger than its parts): the same bounds as SQL
        self._search = Bounds(self._limits.timeout, self._limits.memory)
        self._trust = Trust(games)
        # A manifest is read when its table is first asked for: a lookup in a folder of many tables reads one.
        self._names = list_tables(self._location)
        self._manifests: dict[str, Manifest] = {}
        self._unreadable: dict[str, str] = {}
        self._read_all = False
        self._stored: dict[str, StoredTable] = {}
        self._loaded: dict[str, Rows] = {}
        # A Probe is the dict a kind's probe gives; one probe bound for each table and figures asked for.
        self._probes: dict[tuple[str, frozenset[str] | None], Callable[[str], Probe]] = {}
        self._session: Session | None = None
        self._loading = threading.RLock()  # a table's game and index are loaded once, whoever asks first

    # -- catalogue ------------------------------------------------------------
    def tables(self) -> list[dict[str, Any]]:
        """Each readable table with its game, where this reader takes the game from, parameters, levels and
        row counts, ``symmetry`` where it keeps one position of each orbit (``unreadable`` says why the other
        sub-folders are not tables)."""
        return [{"table": name, "game": m.game, "origin": self._trust.origin(m), "params": m.params,
                 "levels": len(m.plan), "levels_done": len(m.levels_done), "positions": m.positions, "bytes": m.bytes,
                 "complete": m.complete, **({"symmetry": True} if m.symmetry else {}),
                 **{k: m.figures[k] for k in FIGURES_SHOWN if k in m.figures},
                 **({QUOTIENT_SHOWN: quotient_figures(m)} if m.quotient else {})}
                for name, m in self._every_manifest.items()]

    @property
    def _every_manifest(self) -> dict[str, Manifest]:
        """The tables that can be read, by name (every manifest read, once)."""
        self._read_every_manifest()
        return self._manifests

    @property
    def unreadable(self) -> dict[str, str]:
        """Why each other sub-folder with a manifest cannot be read, by name."""
        self._read_every_manifest()
        return self._unreadable

    def _manifest(self, table: str) -> Manifest:
        found = self._manifests.get(table)  # read without the lock once read
        if found is not None:
            return found
        if table not in self._names:
            raise TableNotFound(
                f"no table {table!r} in {self.root} (tables: {', '.join(self._every_manifest) or 'none'})"
            )
        read = self._read_manifest(table)
        if read is None:
            raise StoreError(self._unreadable[table])
        return read

    def _read_manifest(self, table: str) -> Manifest | None:
        """The table's manifest, read once; None if it cannot be read (``unreadable`` says why)."""
        with self._loading:
            if table not in self._manifests and table not in self._unreadable:
                try:
                    manifest = Manifest.load(self._location, table)
                    known_kind(manifest.kind)
                    self._manifests[table] = manifest
                except TablebaseError as e:
                    self._unreadable[table] = str(e)
            return self._manifests.get(table)

    def _read_every_manifest(self) -> None:
        if self._read_all:  # the server asks for them at each request: no lock once they are read
            return
        with self._loading:
            if not self._read_all:
                for name in self._names:
                    self._read_manifest(name)
                self._manifests = {name: self._manifests[name] for name in self._names if name in self._manifests}
                self._read_all = True

    def _stored_table(self, table: str) -> StoredTable:
        """The table as its kind reads it, bound to its game if this reader trusts one for it (else
        GameUnavailable, one line saying which game to name)."""
        found = self._stored.get(table)  # once loaded, read without the lock: a probe takes microseconds
        if found is not None:
            return found
        with self._loading:
            if table not in self._stored:
                m = self._manifest(table)
                game, changed = self._trust.load(m)
                layout = cache(m.layout)  # made at the first level read: a probe reads none (thousands of files)

                # a plain game's notation, from the table's own rows
                def texts(level: int, start: int, stop: int) -> LevelRows:
                    return LevelRows(texts=read_level(self._location, table, layout(), level, m.files, ["position"])
                                     .column("position").combine_chunks())

                kind = kind_of(game, m.symmetry, m.listing, texts)
                self._stored[table] = StoredTable(self._location, table, m, kind, lambda: self._rows(table),
                                                  changed=changed, search=self._search)
            return self._stored[table]

    def _game(self, table: str) -> KeyedForm:
        """The table's game, in keyed form."""
        return self._stored_table(table).keyed

    # -- SQL ------------------------------------------------------------------
    @property
    def _sql_session(self) -> Session:
        """The DuckDB database of the folder's views, sandboxed before any view is made; opened on first use."""
        with self._loading:
            if self._session is None:
                session = Session(self._location, view_files(self._location, self._every_manifest), self._limits)
                try:
                    make_views(session, self._location, self._every_manifest, lambda table: self._spelt(session, table))
                except BaseException:
                    session.close()
                    raise
                self._session = session
            return self._session

    def _spelt(self, session: Session, table: str) -> str:
        """Register the function that spells a compact table's positions from their keys; return its call.

        The table's game is loaded at the first position asked for, not before:
        a query that does not select positions needs no game, trusted or not.
        """
        def spell(keys: pa.Array) -> pa.Array:
            try:
                kind = self._stored_table(table).kind
            except TablebaseError as e:
                session.failed = e  # DuckDB wraps it: the query says this instead
                raise
            keys = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
            return kind.spell(keys.to_numpy(zero_copy_only=False))

        function = f"position_of_{table}"
        session.con.create_function(function, spell, ["BIGINT"], "VARCHAR", type="arrow", side_effects=False)
        return f"{quote_name(function)}(key)"

    def sql(self, query: str, timeout: float | None = _DEFAULT, rows: int | None = None) -> pa.Table:
        """Run one read-only SQL statement (SELECT or EXPLAIN) and return an Arrow table.

        It runs within the memory and thread limits of this Tablebase and is
        stopped after ``timeout`` seconds (by default the Tablebase's), or by
        Ctrl-C; QueryError says which. ``rows``: the first rows only, the rest
        never computed where DuckDB can avoid it.
        """
        limit = self._limits.timeout if timeout is _DEFAULT else timeout
        return self._sql_session.run(query, limit, rows)

    def stats(self, table: str, timeout: float | None = _DEFAULT) -> list[Statistic]:
        """The named statistics of queries/*.sql that apply to this table, plus storage figures
        (each query within the time limit): each with its name (the query file's, a stable key for
        programs), its title (for people) and its rows."""
        return table_statistics(self._location, self._manifest(table), table, lambda query: self.sql(query, timeout))

    # -- lookups ----------------------------------------------------------------
    def _rows(self, table: str) -> Rows:
        """The table's rows for lookups: its probe index read in place where it has one (nothing is loaded),
        else every row loaded into memory on first use (a table built before probe indexes), if its files say
        they take no more than the memory limit (OverLimit otherwise)."""
        found = self._loaded.get(table)
        if found is not None:
            return found
        with self._loading:
            if table not in self._loaded:
                kind, manifest = self._stored_table(table).kind, self._manifest(table)
                path = probe_path(self._location, manifest)
                if path is None:
                    self._loaded[table] = LoadedRows(self._location, table, manifest, kind.spell, self._limits.memory)
                else:
                    self._loaded[table] = ProbedRows(path, kind.spell, kind.keyed.levels_of, kind.columns(),
                                                      kind.derive())
            return self._loaded[table]

    def lookup(self, table: str, position: Position) -> Lookup:
        """The stored row of a position, with every legal move and its child's stored figures, best first.

        A position is text in the game's notation or, where that notation is whole numbers, the numbers
        themselves: ``3``, ``(3, 5)``, ``[7, 7, 5, 3]``; anything else is a PositionError saying so.
        """
        stored = self._stored_table(table)
        return cast(Lookup, _warned(stored, stored.lookup(position_text(stored.keyed, position))))

    def probe(self, table: str, position: Position, columns: Iterable[str] | None = None) -> Probe:
        """The stored figures of one position, from memory: the fast point lookup (positions as ``lookup``
        takes them). ``columns``: the figures to give, where not all (names of the table's columns). An
        impartial table's ``best_move`` is found by probing the position's children up to the one it names
        (docs/format.md), many times the work of the rest: leave it out where it is not needed.

        A partizan position may be stored as its mirror image (a transpose is
        the negative) or be a sum of stored regions: it is answered by lookup.
        """
        wanted = None if columns is None else frozenset(columns)
        probe = self._probes.get((table, wanted))
        if probe is None:
            probe = self._prober(table, wanted)
        if position.__class__ is not str:  # one test for the text a warm probe is given
            position = position_text(self._stored_table(table).keyed, position)
        return probe(position)  # no cast(): a call less is a twentieth of a warm probe

    def _prober(self, table: str, wanted: frozenset[str] | None) -> Callable[[str], Probe]:
        """The table's probe bound once (``Kind.prober``), with the warning if its game's source changed;
        kept until ``close``, which closes the index it reads."""
        stored = self._stored_table(table)
        if wanted is not None:
            unknown = sorted(wanted - set(stored.kind.columns()) - set(answers_of(stored.manifest)))
            if unknown:
                raise UsageError(f"{table}: no column {unknown[0]!r}; its columns are "
                                 f"{', '.join(stored.kind.columns())}")
        bare = stored.kind.prober(stored, wanted)
        probe = cast(Callable[[str], Probe], bare if not stored.changed else lambda text: _warned(stored, bare(text)))
        self._probes[table, wanted] = probe
        return probe

    def line(self, table: str, position: Position, first: str | None = None) -> Line:
        """Best play from a position (as ``lookup`` takes it) to the end: each position with its figures and
        the move played from it.

        A partizan table's line needs the side to move first (``first``: "Left" or "Right"), and the
        sides then take turns; the other kinds' take none (a UsageError, a ValueError, says so).
        """
        stored = self._stored_table(table)
        return cast(Line, stored.line(position_text(stored.keyed, position), first))

    def lookup_many(self, table: str, positions: Any, with_positions: bool = True,
                    columns: list[str] | None = None) -> pa.Table:
        """Stored rows of many positions (a list of str, an Arrow array or a DataFrame column), in order.

        The columns, their order and their types are those of ``SELECT * FROM table`` (without ``position``
        where ``with_positions`` is false), whatever the kind: a position not stored has null figures, and one
        a table answers without storing it (a sum of stored parts) its figures and a null key. ``columns``:
        those of them to give, in the view's order. An impartial table's ``best_move`` is found by probing
        each position's children (docs/format.md), many times the work of the rest: leave it out of
        ``columns`` where it is not needed. Positions are read by the game's compiled reader and found in the
        probe index; a malformed position raises PositionError naming it, and a batch whose rows would pass
        the memory limit OverLimit.
        """
        stored = self._stored_table(table)
        figures = len(stored.kind.columns())
        if hasattr(positions, "__len__"):  # else counted once read
            batch_fits(table, len(positions), figures, self._limits.memory)
        try:
            texts = Texts.of(positions)
        except (ValueError, TypeError, pa.ArrowException) as e:
            raise PositionError(f"{table}: positions must be text: {e}") from None
        batch_fits(table, len(texts), figures, self._limits.memory)
        if len(texts) > COMPILED_FROM:
            compile_if_installed()  # the game's reader compiled: worth its compiling for a large batch
        schema = stored.loaded.get("view_schema")
        if schema is None:
            schema = stored.loaded["view_schema"] = view_schema(self._location, stored.manifest)
        if not with_positions:
            schema = schema.remove(schema.get_field_index("position"))
        for name in answers_of(stored.manifest):  # a sum's misère answers, from the quotient beside the rows
            schema = schema.append(pa.field(name, pa.string()))
        if columns is not None:
            unknown = sorted(set(columns) - set(schema.names))
            if unknown:
                raise UsageError(f"{table}: no column {unknown[0]!r}; its columns are {', '.join(schema.names)}")
            schema = pa.schema([f for f in schema if f.name in columns])
        return as_view(stored.lookup_many(texts, with_positions, set(schema.names)), schema)

    def close(self) -> None:
        """Close the SQL database and remove its temporary folder (the tables stay readable: SQL opens again)."""
        if self._session is not None:
            self._session.close()
            self._session = None
        with self._loading:
            self._probes.clear()  # they read the indexes closed here
            for rows in self._loaded.values():
                if isinstance(rows, ProbedRows):
                    rows.close()
            self._loaded.clear()

    def __enter__(self) -> "Tablebase":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _place(root: str | os.PathLike | Location, options: Mapping[str, Any] | None) -> Location:
    """Where a reader's tables are: a folder's path, read as it always was, or a URL (``store.places``)."""
    if isinstance(root, Location):
        return root
    if options or "://" in os.fspath(root):
        from tablebase.store.places import location_of  # with the object store's module: only for a URL

        return location_of(root, options)
    return Folder(root)


def _warned(stored: StoredTable, result: dict[str, Any]) -> dict[str, Any]:
    """A lookup's result, with a warning if the game's rules may no longer be the table's."""
    if stored.changed:
        result["warning"] = SOURCE_CHANGED
    return result


def open_tablebase(root: str | os.PathLike | Location, games: Iterable[str] = (), **limits: Any) -> Tablebase:
    """Open the tables built under ``root`` for SQL and lookups (see :class:`Tablebase`)."""
    return Tablebase(root, games, **limits)
