"""How the reading verbs print rows: a table for people, CSV, JSON or Parquet for programs, bounded by default.

A query's printed rows are cut at ``--limit`` (100 by default; 0 for all),
and the cut is said on stderr, so that ``SELECT *`` over half a million
positions prints its first rows at once rather than everything; the rows past
the limit are not even computed where DuckDB can stop early. An export (a
file, ``--out``, or Parquet) is not cut by that screen's default: it holds
every row unless ``--limit`` is given. Parquet goes to a file or to a pipe,
never to a terminal.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

from tablebase.errors import TablebaseError

FORMATS = ("table", "csv", "json", "parquet")
DEFAULT_LIMIT = 100
DB_VARIABLE = "TABLEBASE_DB"


def db_option(parser: argparse.ArgumentParser) -> None:
    """``--db``, by default the folder ``TABLEBASE_DB`` names."""
    parser.add_argument("--db", default=os.environ.get(DB_VARIABLE), metavar="DIR|URL",
                        help=f"the tablebase: a folder, or s3://BUCKET/PREFIX on an object store (default: "
                             f"${DB_VARIABLE})")


def need_db(args: argparse.Namespace) -> Any:
    """Where ``--db`` names, with the command's ``--storage-option``s: a store ``Location``."""
    if not args.db:
        raise TablebaseError(f"give the tablebase: --db DIR or --db s3://BUCKET/PREFIX, or set {DB_VARIABLE}")
    from tablebase.store.places import location_of, storage_options

    return location_of(args.db, storage_options(getattr(args, "storage_option", None) or []))


def format_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=FORMATS, default=None, help="how rows are printed (default: table)")
    parser.add_argument("--limit", type=int, default=None, metavar="ROWS",
                        help=f"print at most this many rows, saying so when there are more (default "
                             f"{DEFAULT_LIMIT} printed, every row to --out or as Parquet; 0: all)")
    parser.add_argument("--out", metavar="FILE", help="write the rows to this file instead (Parquet needs one, "
                                                      "unless the output is a pipe)")
    parser.add_argument("--json", action="store_true", help="the same as --format json")


def chosen_format(args: argparse.Namespace) -> str:
    if args.json and args.format not in (None, "json"):
        raise TablebaseError(f"--json and --format {args.format} ask for two formats; give one")
    return "json" if args.json else args.format or "table"


def row_limit(args: argparse.Namespace) -> int:
    """The rows kept at most, 0 for all: ``--limit`` where given; else every row of an export (a file, or
    Parquet), and ``DEFAULT_LIMIT`` of rows printed for a person."""
    if args.limit is not None:
        if args.limit < 0:
            raise TablebaseError(f"--limit must be 0 (all rows) or more, got {args.limit}")
        return args.limit
    return 0 if args.out or chosen_format(args) == "parquet" else DEFAULT_LIMIT


def rows_asked(args: argparse.Namespace) -> int | None:
    """How many rows to fetch: one more than the limit, to know whether there were more."""
    limit = row_limit(args)
    return None if limit == 0 else limit + 1


def print_result(table: Any, args: argparse.Namespace) -> None:
    """Rows as asked, cut at the limit with a line on stderr that says so."""
    form, limit = chosen_format(args), row_limit(args)
    cut = limit and table.num_rows > limit
    if cut:
        table = table.slice(0, limit)
    if form == "parquet":
        _parquet(table, args.out)
    else:
        text = {"table": table_text, "csv": csv_text, "json": json_text}[form](table)
        if args.out:
            from tablebase.store.files import (
                write_atomic,  # the store's imports, only when a file is written
            )

            write_atomic(Path(args.out), lambda tmp: Path(tmp).write_text(text), durable=False)
        else:
            sys.stdout.write(text)
    if cut:
        print(f"tablebase: the first {limit:,} rows; --limit 0 for all of them, or --limit N",
              file=sys.stderr)


def table_text(table: Any) -> str:
    """An Arrow table's rows as aligned columns, for people."""
    return _aligned(table.column_names, table.to_pylist())


def dicts_text(rows: list[dict[str, Any]]) -> str:
    """Rows given as dicts (a lookup's moves, a line's steps) as aligned columns: every key a row has, in
    the order first met. No Arrow: a program that looks one position up imports none."""
    return _aligned(list(dict.fromkeys(k for r in rows for k in r)), rows)


def _aligned(names: list[str], rows: list[dict[str, Any]]) -> str:
    cells = [[("" if r.get(n) is None else str(r[n])) for n in names] for r in rows]
    widths = [max([len(n)] + [len(c[i]) for c in cells]) for i, n in enumerate(names)]
    lines = ["  ".join(n.ljust(w) for n, w in zip(names, widths)).rstrip()]
    lines += ["  ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip() for c in cells]
    return "\n".join(lines) + "\n"


def csv_text(table: Any) -> str:
    import csv  # for this format only

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.column_names)
    for row in table.to_pylist():
        writer.writerow(["" if row[n] is None else row[n] for n in table.column_names])
    return out.getvalue()


def json_text(table: Any) -> str:
    return json.dumps(table.to_pylist(), default=str) + "\n"


def _parquet(table: Any, out: str | None) -> None:
    import pyarrow.parquet as pq

    from tablebase.store.files import write_atomic

    if out:
        write_atomic(Path(out), lambda tmp: pq.write_table(table, tmp), durable=False)
        return
    if sys.stdout.isatty():
        raise TablebaseError("Parquet is not for a terminal: give --out FILE, or pipe the output")
    sink = io.BytesIO()
    pq.write_table(table, sink)
    sys.stdout.buffer.write(sink.getvalue())
