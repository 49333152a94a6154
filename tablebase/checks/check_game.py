"""``tablebase check-game``: a game's rules checked on a small table before anyone builds a big one.

The engine lists the game's positions (or takes the game's own listing),
checks its keys, notation, moves and symmetry, a ``_check_`` function each,
and finally that the table the engine's solver builds level by level equals
a plain recursive search of the same rules (``Builder.oracle``). Each defect is
one line; docs/games.md says what is checked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.builders import Builder, builder_of
from tablebase.errors import TablebaseError
from tablebase.games import Game, KeyedForm, Texts
from tablebase.games.plain import declares_symmetry
from tablebase.jit import compile_all
from tablebase.lazy import np
from tablebase.listed import ListedPlainGame
from tablebase.listing import LimitReached, Limits, limits_set
from tablebase.listing.checked import game_failed, read_back
from tablebase.listing.game_limits import SECONDS, watched

compile_all()  # building compiles the games' functions (a program that only reads runs them as Python)

SHOWN = 10  # defects of one kind listed one by one; a last line counts the rest


class Defects:
    """Defect lines, at most SHOWN of each kind."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.counts: dict[str, int] = {}

    def add(self, kind: str, line: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if self.counts[kind] <= SHOWN:
            self.lines.append(line)

    def all(self) -> list[str]:
        more = [f"{n - SHOWN} more defects: {kind}" for kind, n in self.counts.items() if n > SHOWN]
        return self.lines + more


def check_game(game: Game, limit: int, say: Callable[[str], None] = lambda s: None,
               seconds: float = SECONDS) -> tuple[int, list[str]]:
    """(positions checked, defect lines) of a game with its options: at most ``limit`` positions, the
    game's code taking at most ``seconds`` for each (the listing's limits, ``tablebase.listing.game_limits``).
    A position it takes longer over, or more positions, stop the check with one line (``LimitReached``):
    that is no defect of the rules, and the table is not checked."""
    with limits_set(Limits(seconds, limit)):
        return _checked(game, limit, say)


def _checked(game: Game, limit: int, say: Callable[[str], None]) -> tuple[int, list[str]]:
    builder = builder_of(game)
    defects = Defects()
    if builder.needs_listing:
        say("listing positions from the start positions")
        try:
            builder = builder.over_listing(builder.list_positions(say, limit))
        except LimitReached:
            raise
        except TablebaseError as e:
            return 0, [str(e)]
    keyed = builder.keyed
    total = sum(keyed.level_size(level) for level in range(keyed.max_level + 1))
    if total > limit:
        raise TablebaseError(f"{game.name}: {total:,} positions, more than {limit:,}; give options for a "
                             "smaller table, or --max-positions")
    say(f"{total:,} positions in {keyed.max_level + 1} levels")
    levels = {level: np.asarray(keyed.level_keys(level, 0, keyed.level_size(level)), dtype=np.int64)
              for level in range(keyed.max_level + 1)}
    _check_keys(keyed, levels, defects)
    if defects.lines:  # keys outside the table: nothing further can be read safely
        return total, defects.all()
    _check_generator(keyed, levels, defects)
    if defects.lines:  # a generator that overruns its buffers cannot run in a compiled loop
        return total, defects.all()
    _check_notation(keyed, levels, defects)
    _check_moves(keyed, builder, levels, defects)
    if not game.keyed:
        _check_replayed(keyed, builder, levels, defects)
    if not defects.lines:
        say("solving with the engine and by a plain recursive search")
        _check_solved(builder, levels, defects)
    if not defects.lines and declares_symmetry(game):
        say("checking canonical() against the plain recursive search")
        _check_symmetry(keyed, builder, levels, defects)
    return total, defects.all()


def _check_keys(keyed: KeyedForm, levels: dict[int, np.ndarray], defects: Defects) -> None:
    seen: set[int] = set()
    space = keyed.key_space
    for level, keys in levels.items():
        if len(keys) and np.any(np.diff(keys) <= 0):
            defects.add("keys", f"level {level}: keys are not ascending and distinct")
        if len(keys) and (keys.min() < 0 or (space is not None and keys.max() >= space)):
            defects.add("keys", f"level {level}: keys outside 0..key_space-1 (key_space {space})")
        for key in keys.tolist():
            if key in seen:
                defects.add("keys", f"key {key} is in two levels")
            seen.add(key)
            if keyed.level_of(key) != level:
                defects.add("levels", f"key {key}: level_of says {keyed.level_of(key)}, it is listed in level {level}")


def _check_generator(keyed: KeyedForm, levels: dict[int, np.ndarray], defects: Defects) -> None:
    """A compiled move generator, called from Python with room to spare: at most ``max_moves`` moves each."""
    compiled = keyed.compiled_moves
    if compiled is None:
        return
    room = 4 * max(keyed.max_moves, 1) + 1024
    out_keys, out_moves = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
    args = compiled.make_args()
    for keys in levels.values():
        for key in keys.tolist():
            n = compiled.kernel(key, args, out_keys, out_moves)
            if n > keyed.max_moves:
                defects.add("generator", f"{_spell(keyed, key)!r}: the move generator wrote {n} moves, "
                            f"more than max_moves {keyed.max_moves} (it would write past its buffers)")


def _check_notation(keyed: KeyedForm, levels: dict[int, np.ndarray], defects: Defects) -> None:
    spelt: dict[str, int] = {}
    plain = keyed.game if isinstance(keyed, ListedPlainGame) else None  # its read is checked against its format
    for keys in levels.values():
        if not len(keys):
            continue
        texts = keyed.format_positions(keys).to_strings()
        for key, text in zip(keys.tolist(), texts):
            if text in spelt:
                defects.add("notation",
                            f"{text!r}: two different positions are spelt alike (keys {spelt[text]} and {key})")
            spelt[text] = key
            try:
                back = _read(keyed, plain, text)
            except LimitReached:
                raise
            except TablebaseError as e:
                defects.add("notation", f"{text!r} does not read back: {e}")
                continue
            if isinstance(back, str):
                defects.add("notation", back)
                continue
            if back != key:
                defects.add("notation", f"{text!r} reads back as another position (key {back}, not {key})")
        many = keyed.parse_many(Texts.from_strings(texts))
        if not np.array_equal(many, keys):
            defects.add("notation", "parse_many reads the positions of a level otherwise than parse")


def _read(keyed: KeyedForm, plain: Any, text: str) -> int | str:
    """The key a text reads back as, or (a plain game whose ``read`` does not undo ``format``) why not."""
    if plain is None:
        return keyed.parse(text)
    with watched(plain, "read") as watch:
        watch.at = text
        try:
            return read_back(plain, text) or keyed.parse(text)
        except TablebaseError:
            raise
        except Exception as e:  # the game's own code: any failure is a defect
            return str(game_failed(plain, e, text))


def _check_moves(keyed: KeyedForm, builder: Builder, levels: dict[int, np.ndarray], defects: Defects) -> None:
    level_of = {key: level for level, keys in levels.items() for key in keys.tolist()}
    names: dict[str, int] = {}
    for level, keys in levels.items():
        if not len(keys):
            continue
        for parent, code, child in _moves(keyed, builder, keys):
            try:
                name = keyed.move_name(code)
            except Exception as e:  # the game's own code: any failure is a defect
                defects.add("moves", f"move code {code} has no name: {type(e).__name__}: {e}")
                continue
            if names.setdefault(name, code) != code:
                defects.add("moves", f"move name {name!r} is given to two move codes")
            where = repr(_spell(keyed, parent))
            if child not in level_of:
                defects.add("moves", f"{where}: move {name} leads to key {child}, not a position of the table")
            elif level_of[child] > level or (level_of[child] == level and not builder.same_level):
                defects.add("moves", f"{where}: move {name} leads to {_spell(keyed, child)!r}"
                            f" (level {level_of[child]}), not below level {level}")
            elif level_of[child] != level and level_of[child] not in keyed.child_levels(level):
                defects.add("moves", f"{where}: move {name} leads to level {level_of[child]}, which child_levels"
                            f"({level}) leaves out (the solvers read only the levels it names)")


def _check_replayed(keyed: Any, builder: Builder, levels: dict[int, np.ndarray], defects: Defects) -> None:
    """A plain game's moves once more, each position read back from its text: the same as listed, or the
    rules depend on something besides the position; its ``read`` must undo its ``format``."""
    for keys in levels.values():
        for s in range(builder.kind.sides):
            if not len(keys):
                continue
            listed = keyed.side(keys, s)
            with watched(keyed.game, "moves") as watch:
                try:
                    played = keyed.played(keys, s, watch)
                except LimitReached:
                    raise
                except TablebaseError as e:
                    defects.add("replayed", f"playing the positions again from their text: {e}")
                    continue
                except Exception as e:  # the game's own code: any failure is a defect
                    defects.add("replayed", f"playing the positions again from their text: "
                                f"{game_failed(keyed.game, e, watch.at)}")
                    continue
            for i, key in enumerate(keys.tolist()):
                a = _moves_of(listed, i)
                b = _moves_of(played, i)
                if a != b:
                    defects.add("replayed", f"{_spell(keyed, key)!r}: played again from its text, it has other moves "
                                "than when it was found (the rules must depend on the position alone)")


def _moves_of(side: Any, i: int) -> list[tuple[int, tuple[int, ...]]]:
    """Position ``i``'s moves of a side, as (code, parts) sorted."""
    out = []
    for j in range(side.offsets[i], side.offsets[i + 1]):
        out.append((int(side.moves[j]), tuple(sorted(side.keys[side.starts[j]:side.starts[j + 1]].tolist()))))
    return sorted(out)


def _moves(keyed: Any, builder: Builder, keys: np.ndarray) -> list[tuple[int, int, int]]:
    """(position, move code, child) of every move of a batch, every part of a move's result."""
    out = []
    for side in builder.moves_of(keys):
        for i, parent in enumerate(keys.tolist()):
            for j in range(side.offsets[i], side.offsets[i + 1]):
                for k in side.keys[side.starts[j]:side.starts[j + 1]].tolist():
                    out.append((parent, int(side.moves[j]), k))
    return out


def _spell(keyed: KeyedForm, key: int) -> str:
    return keyed.format_positions(np.array([key], dtype=np.int64)).to_strings()[0]


def _check_solved(builder: Builder, levels: dict[int, np.ndarray], defects: Defects) -> None:
    solver = builder.solver(fresh=True)
    oracle = builder.oracle()
    for level, keys in levels.items():
        if not len(keys):
            solver.remember(level, None)
            continue
        rows = solver.solve(keys)
        solver.remember(level, rows.select(solver.columns))
        for row in rows.to_pylist():
            plain = oracle(row["key"])
            for figure, value in plain.items():
                if row.get(figure) != value:
                    defects.add("solved", f"{row['position']!r}: the engine's table says {figure} "
                                f"{row.get(figure)}, a plain recursive search says {value}")


def _check_symmetry(keyed: Any, builder: Builder, levels: dict[int, np.ndarray], defects: Defects) -> None:
    """Every position's representative (``canonical``): a position of the table at its level, its own
    representative, with the position's figures by the plain recursive search."""
    game, oracle = keyed.game, builder.oracle()
    with watched(game, "canonical") as watch:
        for level, keys in levels.items():
            for key in keys.tolist():
                text = _spell(keyed, key)
                watch.at = text
                try:
                    image = game.canonical(game.read(text))
                    spelt = game.format(image)
                    again = game.format(game.canonical(image))
                    found = keyed.key_of(image)
                except LimitReached:
                    raise
                except Exception as e:  # the game's own code, or an image the table does not hold
                    defects.add("symmetry", f"{text!r}: canonical() gives no position of the table: "
                                f"{game_failed(game, e, text)}")
                    continue
                if again != spelt:
                    defects.add("symmetry", f"{text!r}: canonical() gives {spelt!r}, whose own is {again!r} "
                                "(a representative must be its own)")
                elif keyed.level_of(found) != level:
                    defects.add("symmetry", f"{text!r}: canonical() gives {spelt!r}, of level "
                                f"{keyed.level_of(found)}, not {level}")
                elif oracle(found) != oracle(key):
                    defects.add("symmetry", f"{text!r}: canonical() gives {spelt!r}, whose figures differ "
                                f"({oracle(key)} and {oracle(found)}): it is no symmetry of the rules")
