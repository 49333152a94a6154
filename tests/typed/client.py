"""A small program using tablebase's public API, as a user writes it: mypy --strict must accept it."""

from __future__ import annotations

import sys
from fractions import Fraction

import tablebase
from tablebase import (
    Exact,
    Line,
    Lookup,
    Move,
    PositionError,
    Probe,
    Step,
    TablebaseError,
    TableNotFound,
)
from tablebase.cgt import Value


def best_moves(root: str, table: str, position: str) -> list[str]:
    """The names of a position's moves, best first."""
    with tablebase.open(root) as tb:
        looked: Lookup = tb.lookup(table, position)
    moves: list[Move] = looked.get("moves", [])
    return [m["move"] for m in moves]


def grundy(root: str, table: str, position: str) -> int | None:
    with tablebase.open(root) as tb:
        found: Probe = tb.probe(table, position)
    return found.get("grundy")


def mean(root: str, table: str, position: str) -> Fraction:
    """A partizan position's mean, exactly."""
    with tablebase.open(root) as tb:
        figures: Exact = tablebase.exact(tb.probe(table, position))
    value: Value = figures.value
    return value.mean if value.is_number else figures.mean


def mainline(root: str, table: str, position: str) -> list[tuple[str, str | None]]:
    """Best play to the end: each position and the move played from it."""
    with tablebase.open(root) as tb:
        line: Line = tb.line(table, position)
    steps: list[Step] = line["steps"]
    return [(s["position"], s["move"]) for s in steps]


def main(argv: list[str]) -> int:
    root, table, position = argv
    try:
        print(grundy(root, table, position), best_moves(root, table, position))
    except PositionError as e:  # a ValueError too
        bad: ValueError = e
        print(f"bad position: {bad}")
        return 2
    except TableNotFound as e:  # a LookupError too
        missing: LookupError = e
        print(f"no such table: {missing}")
        return 2
    except TablebaseError as e:
        print(e)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
