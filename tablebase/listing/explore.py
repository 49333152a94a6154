"""The engine's exploration of a plain game: every position from the start positions, numbered, with its moves.

An ``Exploration`` holds the positions found so far (each numbered once, in the
order found) and, for every position expanded, each side's moves. It is
expanded in one process (``everything``: the order found is the order
expanded), or level by level from the top with the larger levels dealt to
workers: a worker plays a batch of positions (``expand_chunk``), keeps each
child and move it meets once, spells its positions, and the search merges
what it found (``merge``) in a fixed order, so that the result does not
depend on the workers.

Every move is checked to lower the level (or keep it, for scored games) as
the search goes, a few thousand positions at a time, so that a game whose
positions climb for ever stops at once. At the end (``listing``) moves are
ranked in their own order (the code of a move; ties between equally good
moves go to the smallest), and positions are numbered by level and then by
notation: keys that no search order or cluster changes, so that a rebuild
gives the same files. The game's code runs watched (``limits.py``): a
position it takes too long over, or more positions than the limit, ends the
search with one line.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from itertools import repeat
from typing import Any

from tablebase.errors import TablebaseError
from tablebase.games import KEY_BITS, Again, PlainGame
from tablebase.lazy import np, pa
from tablebase.listed import distinct, level_of
from tablebase.listing.checked import finished, game_failed
from tablebase.listing.expand import Chunk
from tablebase.listing.game_limits import Watch, current_limits, too_many, watched
from tablebase.listing.levels import Listing, ListingProgress
from tablebase.listing.numbering import Found, SideMoves, int64s, number
from tablebase.listing.rules import PlainRules

TICK = 4096  # positions between looks at the clock


class Exploration:
    """The positions of a plain game found so far, and the moves of those expanded.

    ``limit`` stops a search that finds more positions, ``memory`` one that
    holds more bytes, ``seconds`` one whose game takes longer over one
    position (None: the current limits', ``limits.current_limits``); ``say``
    hears of its progress.
    """

    def __init__(self, game: PlainGame, rules: PlainRules, limit: int | None = None, memory: int | None = None,
                 say: Callable[[str], None] | None = None, track: bool = False,
                 seconds: float | None = None) -> None:
        limits = current_limits()
        self.game, self.rules = game, rules
        self.limit = limits.positions_for(plain=True) if limit is None else limit
        self.seconds = limits.seconds if seconds is None else seconds
        self.ids: dict[Any, int] = {}
        self.positions: list[Any] = []
        self.level_of = array("q")
        self.spelt: list[tuple[list[int], pa.Array]] = []  # positions spelt by workers, and their texts
        self.records = [SideMoves(parts=None if rules.split is None else array("q")) for _ in rules.sides]
        self.order = array("q")  # the positions expanded, in the order they were
        self.done = bytearray()
        self.finished: dict[int, tuple[int, int]] = {}
        self.progress = ListingProgress(say, memory)
        #: per level, positions found and not yet expanded (kept when ``track`` is set)
        self.pending: dict[int, list[int]] = {}
        self.track = track
        # Per side: (positions, moves, parts) whose levels were checked, in the order expanded.
        self._looked = [[0, 0, 0] for _ in rules.sides]
        with watched(game, "start_positions", self.seconds) as watch:
            try:
                for p in rules.start_positions(game):  # taken one by one, under the limit of positions
                    if p not in self.ids:
                        watch.at = p
                        self.new(p)
            except Exception as e:
                raise game_failed(game, e) from None
        if not self.positions:
            raise TablebaseError(f"{game.name}: start_positions() gave no position")

    def new(self, p: Any, level: int | None = None) -> int:
        """Number a position met for the first time (levels are checked once the search is over)."""
        level = level_of(self.game, p) if level is None else level
        i = self.ids[p] = len(self.positions)
        self.positions.append(p)
        self.level_of.append(level)
        self.done.append(0)
        if self.track:
            self.pending.setdefault(level, []).append(i)
        if self.limit is not None and i >= self.limit:
            raise too_many(self.game.name, self.limit)
        return i

    # -- expanding in this process ----------------------------------------------------
    def everything(self) -> Listing:
        """Expand every position here, in the order found, and give the listing."""
        if len(self.records) == 1 and self.rules.split is None and not len(self.order):
            self._watched(self._one_part)
        else:
            self.expand(range(len(self.positions)), to_the_end=True)
        return self.listing()

    def _watched(self, search: Callable[[Watch], None]) -> None:
        """Run a search of the game's moves watched: its failures and its slow positions as one line."""
        with watched(self.game, "moves", self.seconds) as watch:
            try:
                search(watch)
            except Exception as e:
                raise game_failed(self.game, e, watch.at, self.rules) from None

    def _one_part(self, watch: Watch) -> None:
        """The search of games with one side whose moves lead to one position each (impartial, scored).

        This loop runs once for every move of the whole game, so it does no more than it must.
        """
        get, new, positions, record = self.ids.get, self.new, self.positions, self.records[0]
        moves_of, result_of, game = self.rules.sides[0], self.rules.result_of, self.game
        raw, part, count = record.raw().append, record.part.append, record.count.append
        expanded = 0
        while expanded < len(positions):
            p = watch.at = positions[expanded]
            before = len(record.part)
            for move, child in moves_of(p):
                raw(move)
                mark = 0
                if child.__class__ is Again:
                    child, mark = self.rules.extra_turn(game, child)
                c = get(child)
                part((new(child) if c is None else c) | mark)
            n = len(record.part) - before
            count(n)
            if not n and result_of is not None:
                self.finished[expanded] = finished(game, result_of, p)
            expanded += 1
            if not expanded % TICK:
                self._looked_at(expanded)
        self._looked_at(expanded)
        self.done = bytearray(b"\x01" * expanded)

    def _looked_at(self, expanded: int) -> None:
        """Every TICK positions of ``_one_part``: the order so far, progress, and the new moves' levels checked."""
        self.order.extend(range(len(self.order), expanded))
        self.progress.tick(len(self.positions), len(self.positions) - expanded)
        self._check_new_moves()

    def expand(self, ids: Iterable[int], to_the_end: bool = False) -> None:
        """Expand these positions here (and, ``to_the_end``, every one found after them too)."""
        self._watched(lambda watch: self._expand(ids, to_the_end, watch))
        self._check_new_moves()

    def _expand(self, ids: Iterable[int], to_the_end: bool, watch: Watch) -> None:
        get, new, rules, game = self.ids.get, self.new, self.rules, self.game
        pending = iter(ids)
        i = next(pending, None)
        while i is not None:
            if not self.done[i]:
                self.done[i] = 1
                self.order.append(i)
                p = watch.at = self.positions[i]
                any_move = False
                for record, moves_of in zip(self.records, rules.sides):
                    raw = record.raw()
                    before = record.moves()
                    for move, child in moves_of(p):
                        raw.append(move)
                        mark = 0
                        if child.__class__ is Again:
                            child, mark = rules.extra_turn(game, child)
                        if rules.split is None:
                            c = get(child)
                            record.part.append((new(child) if c is None else c) | mark)
                        else:
                            record.parts.append(len(record.part))
                            for piece in rules.split(child):
                                c = get(piece)
                                record.part.append((new(piece) if c is None else c) | mark)
                    record.count.append(record.moves() - before)
                    any_move = any_move or record.moves() > before
                if not any_move and rules.result_of is not None:
                    self.finished[i] = finished(game, rules.result_of, p)
                if not len(self.order) % TICK:
                    self.progress.tick(len(self.positions), len(self.positions) - len(self.order))
                    self._check_new_moves()
            i = next(pending, None)
            if i is None and to_the_end and len(self.order) < len(self.positions):
                i = len(self.order)

    # -- expanding on workers -----------------------------------------------------------
    def merge(self, ids: list[int], chunk: Chunk) -> None:
        """Record what a worker found expanding these positions (``expand_chunk`` of them, in this order)."""
        numbers = self._number_found(chunk.found.tolist() if isinstance(chunk.found, np.ndarray) else chunk.found,
                                     chunk.found_levels)
        for s, record in enumerate(self.records):
            record.count.frombytes(chunk.counts[s].astype(np.int64).tobytes())
            record.segments.append((chunk.moves[s], chunk.distinct_moves))
            if record.parts is not None:
                firsts = len(record.part) + np.cumsum(chunk.part_counts[s]) - chunk.part_counts[s]
                record.parts.frombytes(firsts.astype(np.int64).tobytes())
            parts = chunk.parts[s]  # numbers into ``found``, an extra turn's marked
            record.part.frombytes((numbers[parts & KEY_BITS] | (parts & ~KEY_BITS)).astype(np.int64).tobytes())
        for i in ids:
            self.done[i] = 1
        self.spelt.append((ids, chunk.texts))
        self.order.frombytes(np.asarray(ids, dtype=np.int64).tobytes())
        for j, result in chunk.results.items():
            self.finished[ids[j]] = result
        self.progress.tick(len(self.positions), len(self.positions) - len(self.order))
        self._check_new_moves()

    def _number_found(self, found: list, levels: np.ndarray) -> np.ndarray:
        """The numbers of positions a worker found (each once): old ones looked up, new ones numbered in a batch."""
        try:
            numbers = np.fromiter(map(self.ids.get, found, repeat(-1)), dtype=np.int64, count=len(found))
        except TypeError as e:
            raise game_failed(self.game, e) from None
        missing = np.flatnonzero(numbers < 0)
        if not len(missing):
            return numbers
        start = len(self.positions)
        fresh = np.arange(start, start + len(missing), dtype=np.int64)
        numbers[missing] = fresh
        new_positions = [found[j] for j in missing.tolist()]
        self.ids.update(zip(new_positions, fresh.tolist()))
        self.positions.extend(new_positions)
        new_levels = levels[missing].astype(np.int64)
        self.level_of.frombytes(new_levels.tobytes())
        self.done.extend(bytes(len(missing)))
        if self.track:
            for level in distinct(new_levels).tolist():
                self.pending.setdefault(level, []).extend(fresh[new_levels == level].tolist())
        if self.limit is not None and len(self.positions) > self.limit:
            raise too_many(self.game.name, self.limit)
        return numbers

    # -- the listing --------------------------------------------------------------------------
    def listing(self) -> Listing:
        """Moves ranked, positions numbered: the listing of what was found (every move's level checked)."""
        self._check_new_moves()
        found = Found(self.positions, self.level_of, self.records, int64s(self.order), self.spelt, self.finished,
                      self.rules.result_of is not None)
        with watched(self.game, "format", self.seconds):
            listing = number(self.game, found)
        self.progress.tick(len(self.positions), 0)
        listing.held = self.progress.held
        return listing

    def _check_new_moves(self) -> None:
        """The moves recorded since the last look must lower the level (or, with ``same_level``, keep it):
        one line naming the first that does not."""
        order, levels = int64s(self.order), int64s(self.level_of)
        same = self.rules.same_level
        for side, looked in zip(self.records, self._looked):
            first, moves_from, parts_from = looked
            counts = int64s(side.count)[first:len(order)]
            moves_to = moves_from + int(counts.sum())
            parent = np.repeat(order[first:], counts)
            if side.parts is None:
                parts_to = moves_to
            else:  # a move's parts run to where the next move's begin
                firsts = int64s(side.parts)
                parts_to = int(firsts[moves_to]) if moves_to < len(firsts) else len(side.part)
                parent = np.repeat(parent, np.diff(np.append(firsts[moves_from:moves_to], parts_to)))
            child = int64s(side.part)[parts_from:parts_to] & KEY_BITS
            looked[:] = [len(order), moves_to, parts_to]
            bad = levels[child] > levels[parent] if same else levels[child] >= levels[parent]
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                p, c = self.positions[parent[j]], self.positions[child[j]]
                raise TablebaseError(
                    f"{self.game.name}: a move from {self.game.format(p)!r} (level {levels[parent[j]]}) leads to "
                    f"{self.game.format(c)!r} (level {levels[child[j]]}); every move must lower the level"
                    + (" or keep it" if same else "")
                )
