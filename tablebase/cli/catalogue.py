"""The verbs about the program itself: its version, the games it knows, the CGT calculator, misère quotients."""

from __future__ import annotations

import argparse
import json
from typing import Any, NoReturn

from tablebase.cli.common import one_line
from tablebase.errors import TablebaseError


class Version(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> NoReturn:
        from tablebase.games import find_game, game_names
        from tablebase.version import VERSION

        print(f"tablebase {VERSION}")
        for name in game_names():
            try:
                _, source = find_game(name)
                print(f"  {name}: {source.origin}, version {source.version}")
            except TablebaseError as e:
                print(f"  {name}: {one_line(e)}")
        raise SystemExit(0)


def games(args: argparse.Namespace) -> int:
    from tablebase.games import find_game, game_names
    from tablebase.kinds import kind_named

    listing = []
    for name in game_names():
        try:
            g, source = find_game(name)
        except TablebaseError as e:
            listing.append({"game": name, "error": one_line(e)})
            continue
        listing.append({
            "game": name,
            "kind": g.kind,
            "summary": g.summary,
            "options": [{"name": "--" + o.name, "type": o.type.__name__, "required": o.required, "help": o.help}
                        for o in g.options],
            "position": g.notation,
            "move": g.move_notation,
            "columns": kind_named(g.kind).columns_of(g),
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


def cgt(args: argparse.Namespace) -> int:
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


def misere(args: argparse.Namespace) -> int:
    from tablebase.misere import DEFAULT_MAX_ORDER, misere_quotient
    from tablebase.misere.genus import genera
    from tablebase.misere.report import as_dict, format_report, parse_sum

    max_order = DEFAULT_MAX_ORDER if args.max_order is None else args.max_order
    if max_order < 1:
        raise TablebaseError(f"--max-order {max_order}: give at least 1")
    position = None if args.sum is None else parse_sum(args.sum)
    quotient = misere_quotient(args.code, args.heaps, max_order=max_order)
    data = as_dict(quotient, genera(args.code, args.heaps) if args.genus else None, position)
    print(json.dumps(data) if args.json else format_report(data))
    return 0
