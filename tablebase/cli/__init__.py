"""The ``tablebase`` command: build, check-game, verify, lookup, query, stats, tables, serve, plot, index, gc,
games, cgt, misere.

``main`` parses the verb and hands over to its function: ``building.py``
for the verbs that name a game first (their options depend on it),
``reading.py`` for those that read a folder, ``storage.py`` for ``gc``,
which takes a folder or an object store, ``catalogue.py`` for the
program's own facts. Every error a user can cause ends as one line and exit
status 2 (``common.py``).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence

from tablebase.cli import building, catalogue, indexing, output, reading, storage
from tablebase.cli.common import EXIT_USAGE, Parser, missing_extra, one_line
from tablebase.errors import TablebaseError


def make_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The command line: one verb a job, the readers sharing their options.

    ``verb``: only that verb's options (a command names one, and making every
    verb's would weigh on a cold lookup); None: every verb, for help and for
    a word that is no verb.
    """
    parser = Parser(prog="tablebase", description="Build and query tablebases of combinatorial games.")
    parser.add_argument("--version", nargs=0, action=catalogue.Version,
                        help="the version, and where each game comes from")
    verbs = parser.add_subparsers(dest="verb", required=True, parser_class=Parser)
    for name, (help, add) in VERBS.items():
        if verb in (None, name):
            _add_verb(verbs, name, help, add)
    return parser


def _add_verb(verbs: argparse._SubParsersAction, name: str, help: str,
              add: Callable[[argparse.ArgumentParser], None]) -> None:
    """A verb and its options; a verb that reads a built folder (``--db``) takes a game to trust, and one
    that runs SQL is bounded."""
    if name in READERS:
        reader = verbs.add_parser(name, help=help)
        output.db_option(reader)
        storage.storage_option(reader)
        add(reader)
        reading.game_option(reader)
        if name in BOUNDED:
            reading.limit_options(reader)
    else:
        add(verbs.add_parser(name, help=help))


def _nothing(parser: argparse.ArgumentParser) -> None:
    """``build`` and ``check-game``: their options depend on the game, parsed by ``building.py``."""


def _table_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table")
    parser.add_argument("--json", action="store_true")


def _json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true")


def _lookup(lookup: argparse.ArgumentParser) -> None:
    lookup.add_argument("table")
    lookup.add_argument("position")
    lookup.add_argument("--json", action="store_true")
    lookup.add_argument("--moves", type=int, metavar="N",
                        help="list the N best moves (default: 20 printed, all in --json; 0: none)")
    lookup.add_argument("--line", action="store_true",
                        help="best play from the position to the end, each position with its figures")
    lookup.add_argument("--first", metavar="SIDE",
                        help="with --line on a partizan table: the side to move first, Left or Right")


def _query(query: argparse.ArgumentParser) -> None:
    query.add_argument("sql")
    output.format_options(query)


def _verify(verify: argparse.ArgumentParser) -> None:
    verify.add_argument("table")
    verify.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _serve(serve: argparse.ArgumentParser) -> None:
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every "
                            "network the machine is on)")
    serve.add_argument("--port", type=int, default=8000, help="the TCP port to listen on (default 8000)")
    serve.add_argument("--workers", type=int, default=1, help="server processes")


def _plot(plot: argparse.ArgumentParser) -> None:
    plot.add_argument("table")
    plot.add_argument("picture", metavar="KIND",
                      help="grundy-map (two-number positions), p-positions (two or three numbers), "
                           "outcomes (per level), position (with --position)")
    plot.add_argument("--out", required=True, help="the picture's file, .png or .svg")
    plot.add_argument("--position", help="the position of the picture 'position'")


def _cgt(cgt: argparse.ArgumentParser) -> None:
    cgt.description = "Evaluate a CGSuite expression: 3+-1, {2|-1/2} + ^, ^<2>, (+-1).Cool(1/2)."
    cgt.add_argument("expression", nargs="+", help="the expression (its words are joined by spaces)")
    cgt.add_argument("--json", action="store_true")
    # An expression may start with '-' (-1/2, -{1|0}): anything with one leading dash that is not
    # -h is taken as part of the expression, never as an unknown option.
    cgt._negative_number_matcher = re.compile(r"^-(?!-)")


def _misere(misere: argparse.ArgumentParser) -> None:
    misere.description = ("The misère quotient of an octal game's heaps 0..N: its order, P-portion, each heap's "
                          "element and the multiplication table (docs/misere.md).")
    misere.add_argument("code", help="an octal code such as 0.77, .07, 4.7, or kayles, dawsons-kayles")
    misere.add_argument("--heaps", type=int, required=True, metavar="N", help="the largest heap")
    misere.add_argument("--json", action="store_true")
    misere.add_argument("--sum", metavar="HEAPS", help="answer a sum of heaps, '3 5 7': its misère outcome and a "
                                                       "winning move")
    misere.add_argument("--genus", action="store_true", help="each heap's genus symbol (heaps up to 40)")
    misere.add_argument("--max-order", type=int, default=None, metavar="M",
                        help="refuse a quotient of more than M elements (default 2000)")


# Each verb's help and options, in the order help lists them.
VERBS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "build": ("build tables: build GAME [options] --out DIR, or build --job FILE --out DIR", _nothing),
    "check-game": ("check a game's rules on a small table: check-game GAME [options]", _nothing),
    "lookup": ("a position's stored row and all its moves", _lookup),
    "query": ("run read-only DuckDB SQL; each table is a view of its name", _query),
    "stats": ("the named statistics of queries/*.sql for a table", _table_json),
    "verify": ("check a table's files and re-derive every row from its children", _verify),
    "tables": ("the tables of a tablebase folder", _json),
    "serve": ("serve a read-only JSON API over HTTP", _serve),
    "plot": ("draw a picture of a table: grundy-map, p-positions, outcomes, position", _plot),
    "index": ("write the probe index of built tables (other programs mmap it)", indexing.add_options),
    "gc": ("remove a tablebase's files that no manifest records (what killed builds left), in a folder or s3://",
           storage.gc_options),
    "games": ("every game with its build options and notation, and where it comes from", _json),
    "cgt": ("evaluate a sum of short partizan games in CGSuite notation", _cgt),
    "misere": ("the misère quotient of an octal game's heaps, and misère sums", _misere),
}
READERS = {"lookup", "query", "stats", "verify", "tables", "serve", "plot"}  # read a built folder (--db)
BOUNDED = {"query", "stats"}  # run SQL, under bounds of memory and time


COMMANDS = {
    "lookup": reading.lookup,
    "query": reading.query,
    "stats": reading.stats,
    "verify": reading.verify,
    "index": indexing.index,
    "gc": storage.gc,
    "tables": reading.tables,
    "serve": reading.serve,
    "plot": reading.plot,
    "games": catalogue.games,
    "cgt": catalogue.cgt,
    "misere": catalogue.misere,
}
# Verbs whose options depend on the game named first: parsed in two stages.
GAME_COMMANDS = {"build": building.build, "check-game": building.check_game}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in GAME_COMMANDS:
            return GAME_COMMANDS[argv[0]](argv[1:])
        if not argv:  # what the program does, not "required: verb"
            make_parser().print_help(sys.stderr)
            return EXIT_USAGE
        args = make_parser(argv[0] if argv[0] in COMMANDS else None).parse_args(argv)
        return COMMANDS[args.verb](args)
    except TablebaseError as e:
        print(f"tablebase: error: {one_line(e)}", file=sys.stderr)
        return EXIT_USAGE
    except ModuleNotFoundError as e:  # building, serving or plotting without the build extra
        said = missing_extra(e)
        if said is None:
            raise
        print(f"tablebase: error: {said}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # the reader went away (``| head``): nothing more to say
        return 0
    except OSError as e:  # the machine refused: a full disk, a missing device, no permission
        where = f": {e.filename}" if e.filename else ""
        print(f"tablebase: error: {one_line(e.strerror or e)}{where}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("tablebase: interrupted; run the same command again to resume", file=sys.stderr)
        return 130


def run() -> None:
    """The program: ``main``, and after a build that succeeded, exit without the interpreter's teardown.

    By then everything the build made is on disk and its cluster is closed;
    tearing down the interpreter (numba's compiled code, Dask's modules and
    threads) would only add to every build's time.
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

