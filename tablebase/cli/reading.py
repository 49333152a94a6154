"""The verbs that read a tablebase folder: lookup, query, stats, verify, tables, serve and plot.

A folder is data: each verb runs a game's code only for a built-in game, an
installed plugin, or a game named with ``--game`` (docs/security.md). SQL
runs within ``--memory-limit``, ``--threads`` and ``--timeout``; Ctrl-C ends
a query in one line.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tablebase import DEFAULT_TIMEOUT
from tablebase.cli.common import one_line
from tablebase.cli.output import (
    chosen_format,
    dicts_text,
    need_db,
    print_result,
    rows_asked,
    table_text,
)
from tablebase.errors import TablebaseError
from tablebase.spelling import as_text, counted

EXIT_INTERRUPTED = 130


def game_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", action="append", default=[], metavar="REF",
                        help="trust this game for the tables built from it (path/to/file.py:Class, module:Class "
                             "or a name; may be given again): a folder's own code never runs")


def limit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--memory-limit", metavar="SIZE",
                        help="memory DuckDB may use, e.g. 2GiB (default: a quarter of the memory, at most 4 GiB)")
    parser.add_argument("--threads", type=int, help="threads DuckDB may use (default: the cores)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"stop a query after this long (default {DEFAULT_TIMEOUT:g}; 0: no limit)")
    parser.add_argument("--temp-dir", metavar="DIR",
                        help="where DuckDB's private folder for spills is made (default: the system's temporary "
                             "folder); it is removed afterwards")


def open_db(args: argparse.Namespace) -> Any:
    """The folder of ``--db``, trusting ``--game``, within the limits given."""
    from tablebase import open as open_tb

    timeout = getattr(args, "timeout", DEFAULT_TIMEOUT)
    return open_tb(need_db(args), args.game, memory_limit=getattr(args, "memory_limit", None),
                   threads=getattr(args, "threads", None), timeout=timeout or None,
                   temp_directory=getattr(args, "temp_dir", None))


class CtrlC:
    """Whether Ctrl-C was pressed (see ``noting_ctrl_c``)."""

    seen = False


@contextmanager
def noting_ctrl_c() -> Iterator[CtrlC]:
    """Note Ctrl-C as well as raising KeyboardInterrupt for it.

    DuckDB checks for Ctrl-C inside its calls and may clear the KeyboardInterrupt
    that check raised, so that a Ctrl-C while the folder's views are made would
    be lost and the query run on to its limits; the note keeps it.
    """
    noted = CtrlC()

    def note(signum: int, frame: Any) -> None:
        noted.seen = True
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield noted
        return
    before = signal.signal(signal.SIGINT, note)
    try:
        yield noted
    finally:
        signal.signal(signal.SIGINT, before)


def interrupted() -> int:
    """Ctrl-C on a query: one line, and the shell's status for it."""
    print("tablebase: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


MOVES_SHOWN = 20  # moves a printed lookup lists unless asked: Wythoff's positions have hundreds


def lookup(args: argparse.Namespace) -> int:
    if args.line:
        return line(args)
    if args.first is not None:
        raise TablebaseError("--first goes with --line")
    with open_db(args) as tb:
        row = as_text(tb.lookup(args.table, args.position))
    if "warning" in row:
        print(f"tablebase: warning: {row['warning'] if args.json else row.pop('warning')}", file=sys.stderr)
    if args.moves is not None and args.moves < 0:
        raise TablebaseError(f"--moves must be 0 or more, got {args.moves}")
    moves = row.get("moves", [])
    shown = args.moves if args.moves is not None else (len(moves) if args.json else MOVES_SHOWN)
    if args.json:
        print(json.dumps({**row, "moves": moves[:shown]} if "moves" in row else row))
        return 0
    figures = [f for f in row if f not in ("table", "position", "key", "level", "moves")]
    print(f"{row['table']}  {row['position']}  ({_where(row)})")
    print("  ".join(f"{f} {row[f] if row[f] is not None else '-'}" for f in figures))
    if not moves:
        print("no moves")
        return 0
    print(_moves_heading(moves, shown))
    if shown:
        sys.stdout.write(dicts_text([{k: v for k, v in m.items() if k != "key"} for m in moves[:shown]]))
    if shown < len(moves):
        print(f"tablebase: {counted(len(moves) - shown, 'more move')}: --moves N, or --json for all",
              file=sys.stderr)
    return 0


def _where(row: dict[str, Any]) -> str:
    """Where a looked-up position is stored: its level and key, or that it is not stored itself (a sum of
    stored positions, or a board larger than the table)."""
    known = [f"{name} {row[name]}" for name in ("level", "key") if row.get(name) is not None]
    if row.get("key") is None:
        known.append("not stored itself: valued from the positions the table holds")
    return ", ".join(known)


def _moves_heading(moves: list[dict[str, Any]], shown: int) -> str:
    """How many moves there are and which are listed: "the N best", unless every move loses, where none is
    better than losing (they are listed as the table orders them: the longest defence first, where it
    counts one)."""
    from tablebase.http.verdicts import move_verdict

    heading = counted(len(moves), "move")
    losing = all(move_verdict(m).startswith("loses") for m in moves)
    if losing:
        heading += ", every one losing"
    if shown >= len(moves):
        return heading + ":"
    return heading + (f"; the first {shown:,}:" if losing else f", the {shown:,} best:")


def line(args: argparse.Namespace) -> int:
    """``lookup --line``: best play to the end, a row per position (the move played from it first)."""
    if args.moves is not None:
        raise TablebaseError("--moves and --line do not go together: a line plays one move from each position")
    with open_db(args) as tb:
        found = as_text(tb.line(args.table, args.position, args.first))
    if "warning" in found:
        print(f"tablebase: warning: {found['warning'] if args.json else found.pop('warning')}", file=sys.stderr)
    if args.json:
        print(json.dumps(found))
        return 0
    steps = found["steps"]
    first = f", {found['first']} first" if "first" in found else ""
    print(f"{found['table']}  {found['position']}  ({counted(len(steps) - 1, 'move')}{first}; the line ends: "
          f"{found['ended']})")
    # The move played is the one the table calls best: the best_* figures would say it again.
    shown = [{"step": i, **{k: v for k, v in s.items() if k != "key" and not k.startswith("best_")}}
             for i, s in enumerate(steps)]
    sys.stdout.write(dicts_text(shown))
    return 0


def query(args: argparse.Namespace) -> int:
    chosen_format(args)  # refused before anything runs
    with noting_ctrl_c() as ctrl_c, open_db(args) as tb:
        try:
            if ctrl_c.seen:  # while the folder opened, inside a DuckDB call that swallowed it
                raise KeyboardInterrupt
            result = tb.sql(args.sql, rows=rows_asked(args))
        except KeyboardInterrupt:
            return interrupted()
    print_result(result, args)
    return 0


def stats(args: argparse.Namespace) -> int:
    with noting_ctrl_c() as ctrl_c, open_db(args) as tb:
        try:
            if ctrl_c.seen:
                raise KeyboardInterrupt
            results = tb.stats(args.table)
        except KeyboardInterrupt:
            return interrupted()
    if args.json:  # keyed by the statistic's name, which stays; its title is for people
        print(json.dumps({s.name: {"title": s.title, "rows": s.rows.to_pylist()} for s in results}, default=str))
        return 0
    for i, statistic in enumerate(results):
        print(("\n" if i else "") + f"== {statistic.title}")
        sys.stdout.write(table_text(statistic.rows))
    return 0


def verify(args: argparse.Namespace) -> int:
    from tablebase.checks.verify import verify_table

    def say(text: str) -> None:
        if not args.quiet:
            print(f"[{args.table}] {text}", file=sys.stderr, flush=True)

    checked, problems = verify_table(need_db(args), args.table, say, args.game)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{args.table}: {len(problems)} problems in {checked:,} rows checked", file=sys.stderr)
        return 1
    print(f"{args.table}: {checked:,} rows verified, no problems")
    return 0


def tables(args: argparse.Namespace) -> int:
    with open_db(args) as tb:
        rows, unreadable = tb.tables(), tb.unreadable
    for name, why in unreadable.items():  # set aside: the folder's other tables are listed
        print(one_line(f"tablebase: warning: {name} is not a readable table: {why}"), file=sys.stderr)
    if args.json:
        print(json.dumps(rows))
    elif rows:
        # Figures only some tables have (an octal table's period, its misère quotient) are a column of every
        # row, as JSON.
        from tablebase.query.statistics import FIGURES_SHOWN, QUOTIENT_SHOWN

        extra = [k for k in (*FIGURES_SHOWN, QUOTIENT_SHOWN) if any(k in r for r in rows)]
        sys.stdout.write(dicts_text([{**r, "params": json.dumps(r["params"]),
                                      **{k: json.dumps(r[k]) if k in r else "" for k in extra}} for r in rows]))
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

    serve(need_db(args), args.host, args.port, args.workers, ready, games=args.game)
    return 0


def plot(args: argparse.Namespace) -> int:
    from tablebase.plot import plot_table

    with open_db(args) as tb:
        said = plot_table(tb, args.table, args.picture, args.out, args.position)
    print(f"{args.out}: {said}")
    return 0
