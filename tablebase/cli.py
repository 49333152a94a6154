"""The ``tablebase`` command: build, check-game, verify, lookup, query, stats, tables, serve, plot, games, cgt."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, NoReturn, Sequence

from tablebase.errors import TablebaseError

EXIT_USAGE = 2
# Verbs whose options depend on the game named first: parsed in two stages.
GAME_VERBS = ("build", "check-game")


def _one_line(message: object) -> str:
    """An error message as one line: line breaks and other control characters in
    what the user typed are shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # a game's option never matches a build option by its prefix
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {_one_line(message)}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


class _Version(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> NoReturn:
        import tablebase
        from tablebase.games import find_game, game_names

        print(f"tablebase {tablebase.__version__}")
        for name in game_names():
            try:
                _, source = find_game(name)
                print(f"  {name}: {source.origin}, version {source.version}")
            except TablebaseError as e:
                print(f"  {name}: {_one_line(e)}")
        raise SystemExit(0)


def _build_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--job", help="a job spec (TOML) listing several tables")
    parser.add_argument("--out", help="folder of the tablebase (created if missing)")
    parser.add_argument("--table", help="table name (default: derived from the options)")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler, tcp://HOST:PORT")
    parser.add_argument("--workers", type=int, help="worker processes of the local cluster")
    parser.add_argument("--partition-rows", type=int, help="positions per Dask task")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--compact", action="store_true",
                        help="leave the position text out of the files; SQL and lookups spell it from the key")


def make_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tablebase", description="Build and query tablebases of combinatorial games.")
    parser.add_argument("--version", nargs=0, action=_Version, help="the version, and where each game comes from")
    verbs = parser.add_subparsers(dest="verb", required=True, parser_class=_Parser)
    verbs.add_parser("build", help="build tables: build GAME [options] --out DIR, or build --job FILE --out DIR")
    verbs.add_parser("check-game", help="check a game's rules on a small table: check-game GAME [options]")

    lookup = verbs.add_parser("lookup", help="a position's stored row and all its moves")
    lookup.add_argument("--db", required=True)
    lookup.add_argument("table")
    lookup.add_argument("position")
    lookup.add_argument("--json", action="store_true")

    query = verbs.add_parser("query", help="run read-only DuckDB SQL; each table is a view of its name")
    query.add_argument("--db", required=True)
    query.add_argument("sql")
    query.add_argument("--json", action="store_true")

    stats = verbs.add_parser("stats", help="the named statistics of queries/*.sql for a table")
    stats.add_argument("--db", required=True)
    stats.add_argument("table")
    stats.add_argument("--json", action="store_true")

    verify = verbs.add_parser("verify", help="check a table's files and re-derive every row from its children")
    verify.add_argument("--db", required=True)
    verify.add_argument("table")
    verify.add_argument("--quiet", action="store_true", help="no progress on stderr")

    tables = verbs.add_parser("tables", help="the tables of a tablebase folder")
    tables.add_argument("--db", required=True)
    tables.add_argument("--json", action="store_true")

    serve = verbs.add_parser("serve", help="serve a read-only JSON API over HTTP")
    serve.add_argument("--db", required=True)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1, help="server processes")

    plot = verbs.add_parser("plot", help="draw a picture of a table: grundy-map, p-positions, outcomes, position")
    plot.add_argument("--db", required=True)
    plot.add_argument("table")
    plot.add_argument("picture", metavar="KIND",
                      help="grundy-map (two-number positions), p-positions (two or three numbers), "
                           "outcomes (per level), position (with --position)")
    plot.add_argument("--out", required=True, help="the picture's file, .png or .svg")
    plot.add_argument("--position", help="the position of the picture 'position'")

    listing = verbs.add_parser("games", help="every game with its build options and notation, and where it comes from")
    listing.add_argument("--json", action="store_true")

    cgt = verbs.add_parser("cgt", help="evaluate a sum of short partizan games in CGSuite notation",
                           description="Evaluate a CGSuite expression: 3+-1, {2|-1/2} + ^, ^<2>, (+-1).Cool(1/2).")
    cgt.add_argument("expression", nargs="+", help="the expression (its words are joined by spaces)")
    cgt.add_argument("--json", action="store_true")
    # An expression may start with '-' (-1/2, -{1|0}): anything with one leading dash that is not
    # -h is taken as part of the expression, never as an unknown option.
    cgt._negative_number_matcher = re.compile(r"^-(?!-)")
    return parser


# -- build and check-game: GAME, then its options ------------------------------------
def _parse_game_verb(verb: str, argv: list[str], extra: Any) -> tuple[argparse.Namespace, Any]:
    """(options, game class and source or None) of ``tablebase VERB [GAME | --game REF] [options]``."""
    from tablebase.games import find_game, game_names

    ref = None
    if argv and not argv[0].startswith("-"):  # GAME comes first
        ref, argv = argv[0], argv[1:]
    else:
        first = _Parser(prog=f"tablebase {verb}", add_help=False)
        first.add_argument("--game")
        ref = first.parse_known_args(argv)[0].game
    found = find_game(ref) if ref is not None else None
    cls = found[0] if found else None
    parser = _Parser(
        prog=f"tablebase {verb} {cls.name if cls else 'GAME'}",
        description=(f"{cls.summary}. Positions: {cls.notation}." if cls
                     else f"GAME is one of {', '.join(game_names())}, or module:Class, or path/to/file.py:Class."),
    )
    parser.add_argument("--game", help="the game: a name, module:Class or path/to/file.py:Class")
    extra(parser)
    for option in cls.options if cls else ():
        try:
            parser.add_argument(f"--{option.name}", type=option.type, required=option.required, help=option.help)
        except argparse.ArgumentError:
            raise TablebaseError(f"{cls.name}: its option --{option.name} is also an option of {verb}; rename it") from None
    return parser.parse_args(argv), found


def _params(args: argparse.Namespace, cls: Any) -> dict[str, Any]:
    return {o.key: getattr(args, o.key) for o in cls.options}


def _cmd_build(argv: list[str]) -> int:
    import logging

    from tablebase import fork_server
    from tablebase.imports import long_lived

    local = not any(a == "--scheduler" or a.startswith("--scheduler=") for a in argv)
    if local:
        fork_server.start()  # its imports run beside this process's (the local cluster's workers fork from it)
    with long_lived():  # the build's imports, and its job, last as long as the command
        args, specs, partition_rows = _build_job(argv)
        from tablebase.build.jobs import is_small

        small = local and is_small(specs)
        if small:
            fork_server.stop()  # the job's workers will be threads of this process,
            import tablebase.preload  # noqa: F401  which therefore imports what a worker does
        from tablebase.build import build_tables

    # A build stopped by a lost worker says why in one line; the Dask client's own waits are
    # then left failed and unread, and asyncio would print each with a traceback when it is
    # collected, which may be after that line, as the process ends. Dask's own logs are
    # silenced the same way, for the whole command: the build reports what happened, and a
    # local cluster silences them only while it is open, not while its connections close.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    for summary in build_tables(
        specs, Path(args.out), scheduler=args.scheduler, workers=args.workers,
        partition_rows=partition_rows, quiet=args.quiet, small=small,
    ):
        print(json.dumps(summary), flush=True)
    return 0


def _build_job(argv: list[str]) -> tuple[argparse.Namespace, list[Any], int | None]:
    """The build command's options, its tables' specs, and the partition size asked for."""
    from tablebase.build.jobs import TableSpec, read_job

    args, found = _parse_game_verb("build", argv, _build_options)
    if (args.job is None) == (found is None):
        raise TablebaseError("build needs a GAME with its options, or --job FILE (not both)")
    if not args.out:
        raise TablebaseError("build needs --out DIR")
    settings: dict[str, Any] = {}
    if args.job:
        specs, settings = read_job(args.job)
        if args.compact:
            specs = [s.with_compact(True) for s in specs]
        if args.table:
            raise TablebaseError("--table names one table; with --job give each table a 'name'")
    else:
        cls, source = found
        game = cls(**_params(args, cls))
        specs = [TableSpec(game, source, args.table or game.table, bool(args.compact))]
    return args, specs, args.partition_rows or settings.get("partition_rows")


def _check_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-positions", type=int, default=200_000,
                        help="refuse tables larger than this (the check searches the rules plainly)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _cmd_check_game(argv: list[str]) -> int:
    from tablebase.build.check import check_game

    args, found = _parse_game_verb("check-game", argv, _check_options)
    if found is None:
        raise TablebaseError("check-game needs a GAME with its options")
    cls, _ = found
    game = cls(**_params(args, cls))

    def say(text: str) -> None:
        if not args.quiet:
            print(f"[{game.name}] {text}", file=sys.stderr, flush=True)

    positions, defects = check_game(game, args.max_positions, say)
    for defect in defects:
        print(_one_line(defect))
    if defects:
        print(f"{game.name}: {len(defects)} defects in {positions:,} positions", file=sys.stderr)
        return 1
    print(f"{game.name}: {positions:,} positions checked, no defects")
    return 0


# -- reading ----------------------------------------------------------------------------
def _print_rows(table: Any, as_json: bool) -> None:
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


def _cmd_lookup(args: argparse.Namespace) -> int:
    from tablebase import open as open_tb

    with open_tb(args.db) as tb:
        row = tb.lookup(args.table, args.position)
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
        _print_rows(pa.Table.from_pylist([{k: v for k, v in m.items() if k != "key"} for m in row["moves"]]), False)
    else:
        print("no moves")
    return 0


def _cmd_query(args: argparse.Namespace) -> int:
    from tablebase import open as open_tb

    with open_tb(args.db) as tb:
        _print_rows(tb.sql(args.sql), args.json)
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    from tablebase import open as open_tb

    with open_tb(args.db) as tb:
        results = tb.stats(args.table)
    if args.json:
        print(json.dumps({title: t.to_pylist() for title, t in results}, default=str))
        return 0
    for i, (title, table) in enumerate(results):
        print(("\n" if i else "") + f"== {title}")
        _print_rows(table, False)
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
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


def _cmd_tables(args: argparse.Namespace) -> int:
    import pyarrow as pa

    from tablebase import open as open_tb

    with open_tb(args.db) as tb:
        rows = tb.tables()
    if args.json:
        print(json.dumps(rows))
    elif rows:
        _print_rows(pa.Table.from_pylist([{**r, "params": json.dumps(r["params"])} for r in rows]), False)
    else:
        print(f"no tables in {args.db}")
    return 0


def _cmd_games(args: argparse.Namespace) -> int:
    from tablebase.games import find_game, game_names
    from tablebase.kinds import kind_of

    listing = []
    for name in game_names():
        try:
            g, source = find_game(name)
        except TablebaseError as e:
            listing.append({"game": name, "error": _one_line(e)})
            continue
        listing.append({
            "game": name,
            "kind": g.kind,
            "summary": g.summary,
            "options": [{"name": "--" + o.name, "type": o.type.__name__, "required": o.required, "help": o.help}
                        for o in g.options],
            "position": g.notation,
            "move": g.move_notation,
            "columns": kind_of(g).columns(g),
            "origin": source.origin,
            "version": source.version,
        })
    if args.json:
        print(json.dumps(listing))
        return 0
    for i, g in enumerate(listing):
        if "error" in g:
            print(("\n" if i else "") + f"{g['game']}: cannot be loaded: {g['error']}")
            continue
        opts = " ".join(f"{o['name']} {o['type'].upper()}" if o["required"] else f"[{o['name']} {o['type'].upper()}]"
                        for o in g["options"])
        print(("\n" if i else "") + f"{g['game']} ({g['kind']}): {g['summary']}")
        print(f"  build:    tablebase build {g['game']} {opts} --out DIR".replace("  --out", " --out"))
        print(f"  position: {g['position']}")
        print(f"  move:     {g['move']}")
        print(f"  from:     {g['origin']}, version {g['version']}")
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from tablebase.serve import serve

    if not 0 < args.port < 65536:
        raise TablebaseError(f"--port must be between 1 and 65535, got {args.port}")
    print(f"serving {args.db} on http://{args.host}:{args.port} (API description at /docs)", file=sys.stderr, flush=True)
    serve(args.db, args.host, args.port, args.workers)
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    from tablebase import open as open_tb
    from tablebase.explorer.plot import plot_table

    with open_tb(args.db) as tb:
        said = plot_table(tb, args.table, args.picture, args.out, args.position)
    print(f"{args.out}: {said}")
    return 0


def _cmd_cgt(args: argparse.Namespace) -> int:
    from tablebase.cgt import CGTError, evaluate, format_report

    # After "--" argparse hands every word over as the expression, --json too.
    words = [w for w in args.expression if w != "--json"]
    as_json = args.json or len(words) < len(args.expression)
    if not words:
        raise TablebaseError("cgt needs an expression, e.g. tablebase cgt '{2|-1/2} + ^'")
    try:
        result = evaluate(" ".join(words))
    except CGTError as e:
        raise TablebaseError(str(e)) from None
    print(json.dumps(result) if as_json else format_report(result))
    return 0


COMMANDS = {
    "lookup": _cmd_lookup,
    "query": _cmd_query,
    "stats": _cmd_stats,
    "verify": _cmd_verify,
    "tables": _cmd_tables,
    "serve": _cmd_serve,
    "plot": _cmd_plot,
    "games": _cmd_games,
    "cgt": _cmd_cgt,
}
GAME_COMMANDS = {"build": _cmd_build, "check-game": _cmd_check_game}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in GAME_COMMANDS:
            return GAME_COMMANDS[argv[0]](argv[1:])
        args = make_parser().parse_args(argv)
        return COMMANDS[args.verb](args)
    except TablebaseError as e:
        print(f"tablebase: error: {_one_line(e)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("tablebase: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def run() -> None:
    """The program: ``main``, and after a build that succeeded, exit without the interpreter's teardown.

    By then everything the build made is on disk and its cluster is closed;
    tearing down the interpreter (numba's compiled code, Dask's modules and
    threads) took another half second of every build.
    """
    argv = sys.argv[1:]
    code = main(argv)
    if code == 0 and argv[:1] == ["build"]:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:
            pass
        os._exit(0)
    sys.exit(code)


if __name__ == "__main__":
    run()
