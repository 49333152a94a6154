"""Playing a batch of a plain game's positions: every side's moves, and the positions they reach.

This is the work an exploration (``explore.py``) deals to Dask workers for
its larger levels: a worker plays a batch of positions (``expand_chunk``),
keeps each child and move it meets once, spells the positions it played, and
sends back numbers into its own lists (``Chunk``), which the exploration
merges in a fixed order.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any

from tablebase.games import Again, PlainGame
from tablebase.games.base import MAX_LEVEL
from tablebase.lazy import np, pa
from tablebase.listed import level_of
from tablebase.listing.checked import finished, game_failed, spelt
from tablebase.listing.game_limits import Watch, watched
from tablebase.listing.rules import PlainRules


@dataclass
class Chunk:
    """What a worker found expanding a batch of positions: moves and children as numbers into its own lists."""

    counts: list[np.ndarray]  # per side: each position's number of moves
    moves: list[np.ndarray]  # per side: each move, as an index into ``distinct_moves``
    part_counts: list[np.ndarray | None]  # per side: each move's number of parts (games that split)
    parts: list[np.ndarray]  # per side: each part, as an index into ``found``
    distinct_moves: list
    found: list | np.ndarray  # the positions the moves lead to, each once (whole numbers travel as an array)
    found_levels: np.ndarray
    texts: pa.Array | None  # the notation of each position expanded (if asked for)
    results: dict[int, tuple[int, int]]  # the batch's finished positions: their results


def expand_chunk(game: PlainGame, rules: PlainRules, positions: list, seconds: float | None = None,
                 spell: bool = True) -> Chunk:
    """Play a batch of positions (on a worker): every side's moves, children and moves each kept once.

    ``seconds``: the most the game's code may take for one position (default: the current limits');
    ``spell``: spell the positions played (not when the caller has their notation already).
    """
    found: dict[Any, int] = {}
    levels = array("q")
    move_ids: dict[Any, int] = {}
    counts = [array("q") for _ in rules.sides]
    moves = [array("q") for _ in rules.sides]
    part_counts = [array("q") for _ in rules.sides] if rules.split else None
    parts = [array("q") for _ in rules.sides]
    results: dict[int, tuple[int, int]] = {}
    with watched(game, "moves", seconds) as watch:
        try:
            if len(rules.sides) == 1 and rules.split is None:
                _expand_one_part(game, rules, positions, watch, found, levels, move_ids, counts[0], moves[0], parts[0],
                                 results)
            else:
                _expand_sides(game, rules, positions, watch, found, levels, move_ids, counts, moves, part_counts, parts,
                              results)
            texts = None
            if spell:
                with watched(game, "format"):
                    texts = spelt(game, positions, watch)
        except Exception as e:
            raise game_failed(game, e, watch.at, rules) from None
    children: list | np.ndarray = list(found)
    as_numbers = whole_numbers(children)
    return Chunk([_copied(c) for c in counts], [_copied(m) for m in moves],
                 [_copied(c) for c in part_counts] if part_counts else [None] * len(rules.sides),
                 [_copied(p) for p in parts], list(move_ids), as_numbers if as_numbers is not None else children,
                 _copied(levels), texts, results)


def _expand_sides(game, rules, positions, watch, found, levels, move_ids, counts, moves, part_counts, parts, results):
    """``expand_chunk`` of games with several sides, or whose positions split into parts."""
    for j, p in enumerate(positions):
        watch.at = p
        any_move = False
        for s, moves_of in enumerate(rules.sides):
            n = 0
            for move, child in moves_of(p):
                m = move_ids.get(move)
                moves[s].append(len(move_ids) if m is None else m)
                if m is None:
                    move_ids[move] = len(move_ids)
                mark = 0
                if child.__class__ is Again:
                    child, mark = rules.extra_turn(game, child)
                pieces = rules.split(child) if rules.split else (child,)
                for piece in pieces:
                    c = found.get(piece)
                    if c is None:
                        c = found[piece] = len(found)
                        levels.append(level_of(game, piece))
                    parts[s].append(c | mark)
                if part_counts is not None:
                    part_counts[s].append(len(pieces))
                n += 1
            counts[s].append(n)
            any_move = any_move or n > 0
        if not any_move and rules.result_of is not None:
            results[j] = finished(game, rules.result_of, p)


def _expand_one_part(game, rules, positions, watch: Watch, found, levels, move_ids, counts, moves, parts,
                     results) -> None:
    """``expand_chunk`` for one side whose moves lead to one position each: once per move, no more than it must.

    A move is numbered as it is met: kept until the end, every move's own object (a tuple, say) would
    make the batch's memory grow with its moves rather than with the moves it has distinct. A game
    without extra turns is played by a loop that asks nothing of a child met before.
    """
    if rules.again:
        _expand_with_extra_turns(game, rules, positions, watch, found, levels, move_ids, counts, moves, parts,
                                 results)
        return
    get, count, part, move = found.get, counts.append, parts.append, moves.append
    move_id, level = move_ids.get, game.level
    moves_of, result_of = rules.sides[0], rules.result_of
    for j, p in enumerate(positions):
        watch.at = p
        before = len(parts)
        for m, child in moves_of(p):
            i = move_id(m)
            if i is None:
                i = move_ids[m] = len(move_ids)
            move(i)
            c = get(child)
            if c is None:
                if child.__class__ is Again:
                    rules.extra_turn(game, child)  # refused: this kind has no extra turns
                c = found[child] = len(found)
                at = level(child)
                levels.append(at if at.__class__ is int and 0 <= at <= MAX_LEVEL else level_of(game, child))
            part(c)
        n = len(parts) - before
        count(n)
        if not n and result_of is not None:
            results[j] = finished(game, result_of, p)


def _expand_with_extra_turns(game, rules, positions, watch: Watch, found, levels, move_ids, counts, moves, parts,
                             results) -> None:
    """``_expand_one_part`` of a game whose moves may give ``Again(child)``: the child's number marked."""
    get, count, part, move = found.get, counts.append, parts.append, moves.append
    move_id = move_ids.get
    moves_of, result_of = rules.sides[0], rules.result_of
    for j, p in enumerate(positions):
        watch.at = p
        n = 0
        for m, child in moves_of(p):
            i = move_id(m)
            if i is None:
                i = move_ids[m] = len(move_ids)
            move(i)
            mark = 0
            if child.__class__ is Again:
                child, mark = rules.extra_turn(game, child)
            c = get(child)
            if c is None:
                c = found[child] = len(found)
                levels.append(level_of(game, child))
            part(c | mark)
            n += 1
        count(n)
        if not n and result_of is not None:
            results[j] = finished(game, result_of, p)


def whole_numbers(values: list) -> np.ndarray | None:
    """The values as an int64 array if they are all whole numbers, else None (bools and floats are not)."""
    if not values or type(values[0]) is not int:
        return None
    try:
        numbers = np.array(values)
    except (ValueError, OverflowError):
        return None
    if numbers.ndim != 1 or numbers.dtype != np.int64 or not all(type(v) is int for v in values):
        return None
    return numbers


def _copied(values: array) -> np.ndarray:
    return np.frombuffer(values, dtype=np.int64).copy() if len(values) else np.zeros(0, dtype=np.int64)
