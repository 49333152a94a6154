"""A plain game's small levels played one after another in one process, and a whole listing numbered there.

The listing in shares (``shares.py``) plays a level in every partition at
once, each child sent to its owner: worth its fixed cost (a round of tasks,
work files, the manifest saved) for a level of thousands of positions, not
for a level of a few, and a game may have hundreds of thousands of those.
While the levels waiting are small, one task plays them in turn from the top
(``SerialPlay``): a level's positions are those that reached it, each once
(``fresh``), played as a share is played (``expand``), their children kept
by level until their own level comes. What it played and what still waits
then go to the shares as their own steps would have left them (the caller's
files); or, when it has played every level, it numbers them itself
(``numbered``), by level and then notation, into the very level files the
numbering in ranges gives (``ranges.py``, here with one partition).

These are functions of Arrow tables; where the positions come from and where
the rows go is the caller's (``tablebase.build.census.small_levels``).
"""

from __future__ import annotations

from tablebase.errors import TablebaseError
from tablebase.games import PlainGame
from tablebase.lazy import np, pa
from tablebase.listing.levels import Listing
from tablebase.listing.numbering import named_moves, sorted_moves
from tablebase.listing.ranges import answered, asked, assembled, by_hash, in_order, keyed
from tablebase.listing.rules import PlainRules
from tablebase.listing.shares import coded, expand, fresh, moves_of, reads_back

NOTHING_SEEN = np.zeros(0, dtype=np.uint64)


class SerialPlay:
    """Levels played one after another from the top, in one process: what waits, what was played."""

    def __init__(self, game: PlainGame, rules: PlainRules, seconds: float | None) -> None:
        self.game, self.rules, self.seconds = game, rules, seconds
        self.waiting: dict[int, list[pa.Table]] = {}  # positions as they travel (hash, level, text), by level
        self.played: dict[int, pa.Table] = {}  # each level's rows, as a share's
        self.reaches: dict[int, list[int]] = {}  # the levels each level's children are on
        self.kept: int | None = None  # a level played whose moves keep it: another round of it waits
        self.positions = 0  # played
        self.bytes = 0  # of the rows played, in Arrow

    def add(self, travelling: pa.Table) -> None:
        """Positions found (any levels), as they travel: kept by level until theirs is played."""
        levels = travelling.column("level").to_numpy()
        for level in np.unique(levels).tolist():
            self.waiting.setdefault(level, []).append(travelling.filter(pa.array(levels == level)))

    def rows_waiting(self, level: int) -> int:
        """Positions waiting at a level, copies of one counted apart."""
        return sum(t.num_rows for t in self.waiting.get(level, ()))

    def play(self, level: int, arrived: list[pa.Table]) -> int:
        """Play a level: what waits here and what ``arrived`` for it from elsewhere, each position once. Its
        rows are kept (``played``), its children wait for their levels; the positions played."""
        inbox = pa.concat_tables([*self.waiting.pop(level, []), *arrived])
        share = fresh(self.game, inbox, NOTHING_SEEN)
        rows, reached = expand(self.game, self.rules, level, share, self.seconds)
        levels = reached.column("level").to_numpy()
        self.reaches[level] = np.unique(levels).tolist()
        self.played[level] = rows
        if level in self.reaches[level]:
            self.kept = level
        self.add(reached)
        self.positions += share.num_rows
        self.bytes += rows.nbytes
        return share.num_rows


def numbered(game: PlainGame, played: dict[int, pa.Table], reaches: dict[int, list[int]],
             seconds: float | None) -> Listing:
    """Every level of a game, played (``played``: each level's rows, as a share's; ``reaches``: the levels each
    one's children are on), numbered by level and then notation, each move coded by its rank among the game's
    moves: the listing the numbering in ranges gives."""
    ranked = sorted_moves(game, {move for rows in played.values() for move in moves_of(rows)})
    code_of = {move: code for code, move in enumerate(ranked)}
    top = max(played, default=0)
    sizes = np.zeros(top + 1, dtype=np.int64)
    for level, rows in played.items():
        sizes[level] = rows.num_rows
    listing = Listing(sizes, named_moves(game, ranked))
    firsts = listing.offsets
    ordered, keys = {}, {}
    for level in sorted(played):  # from the bottom, as a listing in one process reads them back
        rows = ordered[level] = in_order(coded(played[level], code_of).replace_schema_metadata(None))
        if rows.num_rows:
            reads_back(game, [rows.column("text")[0].as_py()], seconds)
        keys[level] = by_hash(keyed(rows, int(firsts[level]), 1))
    most = parts = 0
    for level, rows in ordered.items():
        if any(lower not in keys for lower in reaches[level]):
            raise TablebaseError("a level's children reach a level that was not played; build the table again "
                                 "into a fresh folder")
        questions, places = asked(rows, reaches[level], 1)
        answers = {ask: answered(keys[ask[0]], [hashes])[0] for ask, hashes in questions.items()}
        listing.levels[level], level_most, level_parts = assembled(rows, places, answers)
        most, parts = max(most, level_most), parts + level_parts
    listing.max_moves = most
    listing.mean_moves = parts / max(int(sizes.sum()), 1)
    return listing

