"""The views of a folder's tables: each over exactly the files its manifest records.

A table is the view of its name over its files of rows (never a glob of its
folder: a file deleted or left behind by a killed build is not silently
counted); its kind's artifacts add theirs (``<table>_values``), and each
summary a job wrote (``_summaries/<name>.parquet``) is a view of its name. A
table that cannot have its view is refused by name, in one line, and the
others still answer (``make_views``, ``Session.owners``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from tablebase.errors import StoreError
from tablebase.games.base import table_name
from tablebase.kinds import kind_named
from tablebase.lazy import pa, pq
from tablebase.query.sql import Session, damaged, parquet_source
from tablebase.store import Manifest, table_dir
from tablebase.store.footers import refused
from tablebase.store.location import Folder, Location
from tablebase.store.placed import source, sql_path

SUMMARIES = "_summaries"  # as build/summary.py writes them


def quote_name(name: str) -> str:
    """A name as a DuckDB identifier, whatever it contains."""
    return '"' + name.replace('"', '""') + '"'


def view_files(root: Location, manifests: dict[str, Manifest]) -> dict[str, int]:
    """Every file a view may read, with its size: each table's rows and its artifacts' files."""
    return {sql_path(root, name, file, record): record["bytes"] for name, m in manifests.items()
            for file, record in _files(m).items()}


def _files(m: Manifest) -> dict[str, dict]:
    """A table's files that views read, by name: its rows and its artifacts' files, each with its record."""
    return {**m.files, **{f: r for a in kind_named(m.kind).artifacts for f, r in a.files(m).items()}}


def make_views(session: Session, root: Location, manifests: dict[str, Manifest],
               spelt: Callable[[str], str]) -> None:
    """A view per table, then its artifacts' views; ``spelt(table)`` is the SQL that spells a compact
    table's positions from its keys. What cannot be made is noted in ``session.broken``.

    A table whose recorded files are not all there, or not of the size recorded, or that DuckDB cannot make
    a view of (a damaged file, a file without its ``key`` or ``level``), gets no view; a view whose name is
    taken by a table is not made. Either way a query that names it is told why in one line
    (``DamagedTable``), and every other table still answers."""
    for name, m in manifests.items():
        if not m.files:
            session.broken[name] = StoreError(f"table {name} has no rows yet")
            continue
        session.own(name, [sql_path(root, name, file, record) for file, record in _files(m).items()])
        try:
            files = _source(root, name, m)(sorted(m.files))
        except StoreError as e:
            session.broken[name] = e
            continue
        position = spelt(name) if m.compact else "position"
        # Every file holds a level column; DuckDB skips files and row groups by its statistics.
        _made(session, name, [name], f"CREATE VIEW {quote_name(name)} AS SELECT key, {position} AS position, level, "
              f"* EXCLUDE (key, {'' if m.compact else 'position, '}level) FROM {files}")
    for view, path in summary_files(root).items():  # a job's summaries: a view each, unless a table has the name
        if view not in manifests:
            session.own(view, [path])
            _made(session, view, [view], f"CREATE VIEW {quote_name(view)} AS SELECT * FROM {parquet_source([path])}")
    for name, m in manifests.items():
        if name in session.broken:  # its artifacts' views would only say the same
            continue
        for artifact in kind_named(m.kind).artifacts:
            try:
                views = artifact.views(name, m, _source(root, name, m))
            except StoreError as e:
                session.broken.update((view, e) for view in artifact.view_names(name))
                continue
            for view, statement in views:
                if view not in manifests:  # else a table of that name keeps it (the build refuses such names)
                    _made(session, name, [view], statement)


def _made(session: Session, table: str, views: list[str], statement: str) -> None:
    """Run a statement that makes views; if DuckDB cannot (a file it reads is damaged), the views are broken,
    with DuckDB's reason in one line, and nothing else is."""
    import duckdb

    try:
        session.con.execute(statement)
    except duckdb.Error as e:
        session.broken.update((view, damaged(table, str(e), session.root)) for view in views)


def view_schema(root: Location, m: Manifest) -> pa.Schema:
    """The Arrow schema of ``SELECT * FROM <table>``, from the footer of the first file the view reads (DuckDB
    takes the types of the first): ``key``, ``position`` (spelt from the key in a compact table), ``level``,
    then the figures in the files' order, texts as plain strings."""
    name = sorted(m.files)[0]
    try:
        stored = pq.read_schema(source(root, m.table, name, m.files[name]))
    except (OSError, pa.ArrowException) as e:
        raise refused(root, m.table, f"its file {name} cannot be read: {str(e).splitlines()[0]}") from None
    plain = {f.name: f.type.value_type if pa.types.is_dictionary(f.type) else f.type for f in stored}
    plain["position"] = pa.string()
    first_three = ["key", "position", "level"]
    names = first_three + [f.name for f in stored if f.name not in first_three]
    return pa.schema([(name, plain[name]) for name in names])


def as_view(rows: pa.Table, schema: pa.Schema) -> pa.Table:
    """Rows in the view's columns, order and types: what the schema lacks left out, what the rows lack null,
    each column cast to its type (a figure to its stored width, a text out of its dictionary)."""
    columns = [rows.column(f.name).cast(f.type) if f.name in rows.column_names else pa.nulls(rows.num_rows, f.type)
               for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def summary_files(root: Location) -> dict[str, str]:
    """The summaries jobs wrote where the tables are (``build/summary.py``), each a file of its own name: where
    DuckDB reads each, by its view's name."""
    if isinstance(root, Folder):
        return {p.stem: str(p) for p in sorted((root.root / SUMMARIES).glob("*.parquet"))
                if p.is_file() and not p.is_symlink() and table_name([p.stem]) == p.stem}
    found = {}
    for name in sorted(root.list(f"{SUMMARIES}/")):
        stem = name[len(SUMMARIES) + 1:].removesuffix(".parquet")
        if name.endswith(".parquet") and table_name([stem]) == stem:
            found[stem] = f"s3://{root.path(name)}"
    return found


def _source(root: Location, table: str, m: Manifest) -> Callable[[list[str]], str]:
    """The SQL that reads exactly these files of a table; in a folder, DamagedTable naming the first that is
    missing or not of the size its manifest records (a stat each, as the check that it is there costs anyway).
    On an object store such a file is refused as DuckDB reads it (``Session.owners``): a look at each would
    cost a request."""
    records = m.records()
    if not isinstance(root, Folder):
        return lambda names: parquet_source(sql_path(root, table, n, records.get(n)) for n in names)
    folder = table_dir(root.root, table)

    def reading(names: list[str]) -> str:
        for name in names:
            try:
                found = os.stat(folder / name)
            except OSError:
                found = None
            if found is None or not stat.S_ISREG(found.st_mode):
                raise refused(root, table, f"its file {name} is missing (its manifest records it)")
            if name in records and found.st_size != records[name]["bytes"]:
                raise refused(root, table, f"its file {name} is {found.st_size:,} bytes, its manifest records "
                                            f"{records[name]['bytes']:,}")
        return parquet_source(folder / n for n in names)

    return reading

