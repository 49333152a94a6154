"""``tablebase build`` and ``tablebase check-game``: a game named first, then its own options.

Their options depend on the game, so they are parsed in two stages: the
game's reference first, then a parser made with the game's options.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tablebase.cli.common import Parser, one_line
from tablebase.cli.storage import storage_option
from tablebase.errors import TablebaseError, UsageError


def _build_options(parser: argparse.ArgumentParser) -> None:
    from tablebase.listing.game_limits import PLAIN_POSITIONS

    parser.add_argument("--job", help="a job spec (TOML) listing several tables")
    parser.add_argument("--out", help="the tablebase: a folder (created if missing), or s3://BUCKET/PREFIX on an "
                                      "object store")
    parser.add_argument("--table", help="table name (default: derived from the options)")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler, tcp://HOST:PORT")
    parser.add_argument("--workers", type=int, help="worker processes of the local cluster")
    parser.add_argument("--dashboard", action="store_true",
                        help="serve the local cluster's Dask dashboard, on 127.0.0.1 (this machine only)")
    parser.add_argument("--partition-rows", type=int, help="positions per Dask task")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--progress-every", type=float, metavar="SECONDS",
                        help="seconds between status lines on stderr (default: 1 at a terminal, 10 in a log or pipe)")
    parser.add_argument("--compact", action="store_true",
                        help="leave the position text out of the files; SQL and lookups spell it from the key")
    parser.add_argument("--symmetry", action="store_true",
                        help="keep one position of each orbit under the game's symmetry (its canonical(position)); "
                             "the table's name ends in _symmetry")
    _misere_option(parser)
    parser.add_argument("--scratch", help="folder on local disk for values too large for memory (default: "
                                          "under --out, or the temporary folder for an object store; removed "
                                          "when the build ends)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the memory plan (memory per worker, page cache, disk) and build nothing")
    storage_option(parser)
    parser.add_argument("--max-positions", type=int,
                        help=f"refuse to list more positions than this (default: {PLAIN_POSITIONS:,} for a game in "
                             "plain Python, no bound for a keyed one)")
    _seconds_option(parser)


def _seconds_option(parser: argparse.ArgumentParser) -> None:
    from tablebase.listing.game_limits import SECONDS

    parser.add_argument("--position-seconds", type=float, default=SECONDS,
                        help=f"stop when the game's own code takes longer than this over one position "
                             f"(default {SECONDS:g})")


def _parse_game_verb(verb: str, argv: list[str], extra: Any) -> tuple[argparse.Namespace, Any]:
    """(options, game class and source or None) of ``tablebase VERB [GAME | --game REF] [options]``."""
    from tablebase.games import find_game, game_names

    ref = None
    if argv and not argv[0].startswith("-"):  # GAME comes first
        ref, argv = argv[0], argv[1:]
    else:
        first = Parser(prog=f"tablebase {verb}", add_help=False, partial=True)
        first.add_argument("--game")
        ref = first.parse_known_args(argv)[0].game
    found = find_game(ref) if ref is not None else None
    cls = found[0] if found else None
    parser = Parser(
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
            raise TablebaseError(
                f"{cls.name}: its option --{option.name} is also an option of {verb}; rename it") from None
    return parser.parse_args(argv), found


def _params(args: argparse.Namespace, cls: Any) -> dict[str, Any]:
    """The game's options as given, with ``misere`` where ``--misere`` asks for misère figures."""
    return {**{o.key: getattr(args, o.key) for o in cls.options}, **({"misere": True} if args.misere else {})}


def _misere_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--misere", action="store_true",
                        help="an impartial game's rows keep misère figures too (who cannot move wins): outcome, "
                             "remoteness and best move (docs/misere.md)")


def build(argv: list[str]) -> int:
    import logging

    from tablebase.build.cluster import fork_server
    from tablebase.build.cluster.imports import long_lived

    # The solvers' imports take seconds on a loaded machine: a person at a terminal is told at once.
    # (Not in a log or a pipe, where an error must stay the one line there is.)
    if "--quiet" not in argv and sys.stderr.isatty():
        print("[tablebase] loading the game and the solvers", file=sys.stderr, flush=True)
    local = not any(a == "--scheduler" or a.startswith("--scheduler=") for a in argv)
    if local:
        fork_server.start()  # its imports run beside this process's (the local cluster's workers fork from it)
    with long_lived():  # the build's imports, and its job, last as long as the command
        args, specs, partition_rows, summaries, out = _build_job(argv)
        from tablebase.build.jobs import is_small
        from tablebase.build.tables import prepare_out
        from tablebase.listing.game_limits import Limits, limits_set
        from tablebase.store.lock import lock_at

        limits = Limits(args.position_seconds, args.max_positions)  # refused in one line before --out is made
        if args.progress_every is not None and not args.progress_every > 0:
            raise UsageError("--progress-every must be a number of seconds above 0")
        prepare_out(specs, out, args.scheduler, args.workers, partition_rows, args.dashboard,
                    Path(args.scratch) if args.scratch else None)
        for spec in specs:  # a table another build is writing is refused before its positions are counted
            lock_at(out, spec.name).check()

        def say(table: str, text: str) -> None:
            if not args.quiet:
                print(f"[{table}] {text}", file=sys.stderr, flush=True)

        small = local and is_small(specs, say)
        if small:
            fork_server.stop()  # the job's workers will be threads of this process,
            import tablebase.build.cluster.preload  # noqa: F401  which therefore imports what a worker does
        from tablebase.build import build_tables

    # A build stopped by a lost worker says why in one line; the Dask client's own waits are
    # then left failed and unread, and asyncio would print each with a traceback when it is
    # collected, which may be after that line, as the process ends. Dask's own logs are
    # silenced the same way, for the whole command: the build reports what happened, and a
    # local cluster silences them only while it is open, not while its connections close.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    logging.getLogger("distributed").setLevel(logging.CRITICAL)

    def dashboard(url: str) -> None:
        print(f"Dask dashboard at {url} (this machine only)", file=sys.stderr, flush=True)

    with limits_set(limits):  # the listings' limits
        for summary in build_tables(
            specs, out, scheduler=args.scheduler, workers=args.workers, partition_rows=partition_rows,
            quiet=args.quiet, every=args.progress_every, small=small, dashboard=dashboard if args.dashboard else None,
            scratch=Path(args.scratch) if args.scratch else None, dry_run=args.dry_run,
        ):
            if args.dry_run:
                say(summary.table, summary.as_dict()["plan"])
            print(json.dumps(summary.as_dict()), flush=True)
    for name, tables in summaries.items():
        from tablebase.build.summary import write_summary

        path = write_summary(out, name, tables)
        print(json.dumps({"summary": name, "tables": len(tables), "file": str(path)}), flush=True)
    return 0


def _build_job(argv: list[str]) -> tuple[argparse.Namespace, list[Any], int | None, dict[str, list[str]], Any]:
    """The build command's options, its tables' specs, the partition size asked for, the summaries to
    write once they are built (name -> tables), and where (``build.tables.output_place``)."""
    from tablebase.build.jobs import TableSpec, read_job
    from tablebase.build.tables import output_place
    from tablebase.store.places import is_url, location_of, storage_options

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
        if args.symmetry:  # a table named in the job keeps its name
            named = {s.name for s in specs if s.name != s.game.table}
            specs = [s if s.symmetry else s.with_symmetry(s.name in named) for s in specs]
        if args.misere:
            specs = [s.with_misere() for s in specs]
        if args.table:
            raise TablebaseError("--table names one table; with --job give each table a 'name'")
    else:
        cls, source = found
        game = cls(**_params(args, cls))
        spec = TableSpec(game, source, args.table or game.table, bool(args.compact))
        specs = [spec.with_symmetry(bool(args.table)) if args.symmetry else spec]
    options = storage_options(args.storage_option)
    if is_url(args.out):  # a job's [storage] is for an object store; the same job may be built in a folder
        options = {**settings.get("storage", {}), **options}
    out = output_place(location_of(args.out, options))
    return args, specs, args.partition_rows or settings.get("partition_rows"), settings.get("summaries", {}), out


def _check_options(parser: argparse.ArgumentParser) -> None:
    _misere_option(parser)
    parser.add_argument("--scratch", help="folder on local disk for values too large for memory (default: "
                                          "under --out, or the temporary folder for an object store; removed "
                                          "when the build ends)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the memory plan (memory per worker, page cache, disk) and build nothing")
    storage_option(parser)
    parser.add_argument("--max-positions", type=int, default=200_000,
                        help="refuse tables larger than this (the check searches the rules plainly)")
    _seconds_option(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def check_game(argv: list[str]) -> int:
    from tablebase.checks.check_game import check_game

    args, found = _parse_game_verb("check-game", argv, _check_options)
    if found is None:
        raise TablebaseError("check-game needs a GAME with its options")
    cls, _ = found
    game = cls(**_params(args, cls))

    def say(text: str) -> None:
        if not args.quiet:
            print(f"[{game.name}] {text}", file=sys.stderr, flush=True)

    positions, defects = check_game(game, args.max_positions, say, args.position_seconds)
    for defect in defects:
        print(one_line(defect))
    if defects:
        print(f"{game.name}: {len(defects)} defects in {positions:,} positions", file=sys.stderr)
        return 1
    print(f"{game.name}: {positions:,} positions checked, no defects")
    return 0
