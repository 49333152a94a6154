"""The verbs that read a tablebase folder: lookup, query, stats, verify, tables, serve and plot."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tablebase.errors import TablebaseError
from tablebase.words import as_text


def print_rows(table: Any, as_json: bool) -> None:
    rows = table.to_pylist()
    if as_json:
        print(json.dumps(rows, default=str))
        return
    names = table.column_names
    cells = [[("" if r[n] is None else str(r[n])) for n in names] for r in rows]
    widths = [max([len(n)] + [len(c[i]) for c in cells]) for i, n in enumerate(names)]
    print("  ".join(n.ljust(w) for n, w in zip(names, widths)).rstrip())
    for c in cells:
        print("  ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip())


def lookup(args: argparse.Namespace) -> int:
    from tablebase import open as open_tb

    with open_tb(args.db) as tb:
        row = as_text(tb.lookup(args.table, args.position))
    if "warning" in row:
        print(f"tablebase: warning: {row['warning'] if args.json else row.pop('warning')}", file=sys.stderr)
    if args.json:
        print(json.dumps(row))
        return 0
    figures = [f for f in row if f not in ("table", "position", "key", "level", "moves")]
    print(f"{row['table']}  {row['position']}  (level {row['level']}, key {row['key']})")
    print("  ".join(f"{f} {row[f] if row[f] is not None else '-'}" for f in figures))
    if row["moves"]:
        import pyarrow as pa

        print(f"{len(row['moves'])} moves:")
        print_rows(pa.Table.from_pylist([{k: v for k, v in m.items() if k != "key"} for m in row["moves"]]), False)
    else:
        print("no moves")
    return 0


def query(args: argparse.Namespace) -> int:
    from tablebase import open as open_tb

    with open_tb(args.db) as tb:
        print_rows(tb.sql(args.sql), args.json)
    return 0


def stats(args: argparse.Namespace) -> int:
    from tablebase import open as open_tb

    with open_tb(args.db) as tb:
        results = tb.stats(args.table)
    if args.json:
        print(json.dumps({title: t.to_pylist() for title, t in results}, default=str))
        return 0
    for i, (title, table) in enumerate(results):
        print(("\n" if i else "") + f"== {title}")
        print_rows(table, False)
    return 0


def verify(args: argparse.Namespace) -> int:
    from tablebase.build.verify import verify_table

    def say(text: str) -> None:
        if not args.quiet:
            print(f"[{args.table}] {text}", file=sys.stderr, flush=True)

    checked, problems = verify_table(args.db, args.table, say)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{args.table}: {len(problems)} problems in {checked:,} rows checked", file=sys.stderr)
        return 1
    print(f"{args.table}: {checked:,} rows verified, no problems")
    return 0


def tables(args: argparse.Namespace) -> int:
    import pyarrow as pa

    from tablebase import open as open_tb

    with open_tb(args.db) as tb:
        rows = tb.tables()
    if args.json:
        print(json.dumps(rows))
    elif rows:
        print_rows(pa.Table.from_pylist([{**r, "params": json.dumps(r["params"])} for r in rows]), False)
    else:
        print(f"no tables in {args.db}")
    return 0


def serve(args: argparse.Namespace) -> int:
    from tablebase.http.app import serve

    if not 0 < args.port < 65536:
        raise TablebaseError(f"--port must be between 1 and 65535, got {args.port}")
    if args.workers < 1:
        raise TablebaseError(f"--workers must be at least 1, got {args.workers}")

    def ready(url: str) -> None:  # said once the folder is open and the port bound, not before
        print(f"serving {args.db} on {url} (API description at /openapi.json)", file=sys.stderr, flush=True)

    serve(args.db, args.host, args.port, args.workers, ready)
    return 0


def plot(args: argparse.Namespace) -> int:
    from tablebase import open as open_tb
    from tablebase.plot import plot_table

    with open_tb(args.db) as tb:
        said = plot_table(tb, args.table, args.picture, args.out, args.position)
    print(f"{args.out}: {said}")
    return 0
