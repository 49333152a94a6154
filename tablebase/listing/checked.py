"""A plain game's own methods as the listing calls them, and what they return checked.

The listing calls the game millions of times, so the checks on the way are
the cheap ones: a level's type and range (``listed.level_of``), a batch of notation made into
Arrow (which takes nothing but strings), a finished position's score. When
the game's code fails, or returns what the listing cannot use, the failure is
looked into once (``game_failed``): the position's moves are played again
and each thing they give is checked, so that the line names the method, the
position and what it returned, not the engine's code that tripped on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablebase.errors import PositionError, TablebaseError
from tablebase.games import Again, PlainGame
from tablebase.games.plain import MAX_SCORE
from tablebase.lazy import pa
from tablebase.listed import level_of
from tablebase.listing.game_limits import Watch, game_frame
from tablebase.spelling import shown

_NOT_GIVEN = object()


def spelt(game: PlainGame, positions: Sequence[Any], watch: Watch) -> pa.Array:
    """The notation of each position, as Arrow strings; a ``format()`` that returns anything else is named."""
    fmt = game.format
    texts = []
    add = texts.append
    for p in positions:
        watch.at = p
        add(fmt(p))
    try:
        return pa.array(texts, pa.string())
    except (pa.ArrowTypeError, pa.ArrowInvalid, UnicodeError):
        for p, text in zip(positions, texts):
            if not isinstance(text, str):
                raise TablebaseError(f"{game.name}: format({shown(p)}) returned {shown(text)}, "
                                     f"of type {type(text).__name__}, not a str") from None
            try:
                text.encode()
            except UnicodeError:
                raise TablebaseError(f"{game.name}: format({shown(p)}) returned {shown(text)}, which is not "
                                     "valid Unicode text") from None
        raise


def apart(game: PlainGame, texts: Sequence[str], positions: Sequence[Any]) -> None:
    """Distinct positions must be spelt apart: the notation alone carries a position to the worker that plays it
    (no position is pickled). One line naming the first two spelt alike."""
    if len(set(texts)) == len(texts):
        return
    first: dict[str, Any] = {}
    for text, p in zip(texts, positions):
        if text in first:
            raise TablebaseError(f"{game.name}: format() gives {text!r} for two different positions, "
                                 f"{shown(first[text])} and {shown(p)}")
        first[text] = p


def read_all(game: PlainGame, texts: Sequence[str], watch: Watch) -> list[Any]:
    """The positions these texts spell, as the game reads them, each spelt again as its text: one line if
    ``read`` refuses one, gives None, or gives a position ``format`` spells otherwise (``read_back`` says
    which)."""
    read, spell = game.read, game.format
    out = []
    add = out.append
    for text in texts:
        watch.at = text
        try:
            p = read(text)
        except PositionError:
            p = None
        if p is None or spell(p) != text:
            raise TablebaseError(read_back(game, text) or f"{game.name}: read({text!r}) gave no position")
        add(p)
    return out


def read_back(game: PlainGame, text: str, position: Any = _NOT_GIVEN) -> str | None:
    """Why ``read`` does not undo ``format`` for a text that ``format`` gave (of ``position``), or None.

    A lookup reads what a user types, and ``verify`` and ``check-game`` what
    the table holds: a game whose ``read`` does not give back the position its
    ``format`` spelt has a defect, however the text looks.
    """
    undo = "read() must undo format() (a defect of the game, not of the position)"
    try:
        back = game.read(text)
    except PositionError as e:
        return f"{game.name}: read({text!r}) refuses the text format() gave ({e}); {undo}"
    if back is None:
        return f"{game.name}: read({text!r}) returned None; {undo}"
    if _unhashable(back):
        return f"{game.name}: read({text!r}) returned {shown(back)}, which is not hashable; {undo}"
    again = game.format(back)
    if again != text:
        return f"{game.name}: {text!r} reads back as another position (format() spells it {shown(again)}); {undo}"
    if position is not _NOT_GIVEN and back != position:  # both spelt alike
        return (f"{game.name}: format() gives {text!r} for two different positions, {shown(position)} and "
                f"{shown(back)} (read back from it)")
    return None


def finished(game: PlainGame, result_of: Any, p: Any) -> tuple[int, int]:
    """How a position without moves ended, (outcome, score), its score within what a table stores."""
    outcome, score = result_of(p)
    if not -MAX_SCORE <= score <= MAX_SCORE:
        raise TablebaseError(f"{game.name}: result({shown(p)}) gave the score {score}; a table stores scores from "
                             f"-{MAX_SCORE} to {MAX_SCORE}")
    return outcome, score


def game_failed(game: PlainGame, e: BaseException, position: Any = _NOT_GIVEN, rules: Any = None) -> TablebaseError:
    """One line for an error raised while the game's code was searched (at ``position``, by ``rules``).

    An error raised in the engine's own code means the game gave something it
    cannot use: the position is played again to find what (``_fault``).
    """
    if isinstance(e, TablebaseError):
        return e
    at = "" if position is _NOT_GIVEN else f" at position {shown(position)}"
    method = _game_method(game, e)
    if method is None and rules is not None and position is not _NOT_GIVEN:
        try:
            fault = _fault(game, rules, position)
        except TablebaseError as found:
            return found
        except Exception as again:
            e, method = again, _game_method(game, again)
        else:
            if fault is not None:
                return TablebaseError(fault)
    if isinstance(e, TypeError) and "unhashable" in str(e):
        return TablebaseError(f"{game.name}: positions and moves must be hashable (use tuples, not lists){at}: {e}")
    within = "" if method is None else f", in {method}()"
    return TablebaseError(f"{game.name}: the game's code failed{at}{within}: {type(e).__name__}: {e}")


def _game_method(game: PlainGame, e: BaseException) -> str | None:
    """The game's method in which an error was raised (the outermost that the traceback runs), if any."""
    frame = game_frame(game, e.__traceback__)
    return None if frame is None else frame.f_code.co_name


def _fault(game: PlainGame, rules: Any, p: Any) -> str | None:
    """What the game gives at a position that the engine cannot use, played again: a line, or None."""
    any_move = False
    for moves_of in rules.sides:
        name = f"{getattr(moves_of, '__name__', 'moves')}({shown(p)})"
        given = moves_of(p)
        try:
            pairs = iter(given)
        except TypeError:
            return f"{game.name}: {name} returned {shown(given)}, not (move, position) pairs"
        for pair in pairs:
            any_move = True
            try:
                move, child = pair
            except (TypeError, ValueError):
                return f"{game.name}: {name} gave {shown(pair)}, not a (move, position) pair"
            for what, value in (("move", move), ("position", child)):
                if _unhashable(value):
                    return (f"{game.name}: {name} gave the {what} {shown(value)}, which is not hashable "
                            "(use tuples, not lists)")
            if isinstance(child, Again):
                child = rules.extra_turn(game, child)[0]
            fault = _parts_fault(game, rules, child) if rules.split is not None else None
            if fault is not None:
                return fault
            level_of(game, child)
    if not any_move and rules.result_of is not None:
        return _result_fault(game, rules, p)
    return None


def _parts_fault(game: PlainGame, rules: Any, child: Any) -> str | None:
    parts = rules.split(child)
    try:
        pieces = list(parts)
    except TypeError:
        pieces = None
    if pieces is None or any(_unhashable(piece) for piece in pieces):
        return f"{game.name}: components({shown(child)}) returned {shown(parts)}, not a sequence of positions"
    for piece in pieces:
        level_of(game, piece)
    return None


def _result_fault(game: PlainGame, rules: Any, p: Any) -> str | None:
    try:
        rules.result_of(p)
    except Exception:
        given = game.result(p)
        return (f"{game.name}: result({shown(p)}) returned {shown(given)}; it must return a Result(outcome, "
                "score) whose outcome is Outcome.LOSS, WIN or DRAW")
    return None


def _unhashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return True
    return False
