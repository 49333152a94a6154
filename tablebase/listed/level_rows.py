"""One level of a listing as its positions' rows, and the two batch helpers the listed forms and the listing share.

``LevelRows`` holds a level's positions in key order: a plain game's
notation and each side's moves, or a keyed game's keys (``listing`` makes
them; ``listed_forms.py`` reads them). ``gather`` and ``distinct`` are numpy's
ranges of runs and sorted distinct keys, as both need them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tablebase.games import SumMoves
from tablebase.lazy import np, pa


@dataclass
class LevelRows:
    """One level of a listing, positions in key order."""

    texts: pa.Array | None = None  # plain games: the notation of each position
    sides: list[SumMoves] = field(default_factory=list)  # plain games: each side's moves
    outcome: np.ndarray | None = None  # scored plain games: a finished position's Outcome, -1 if not finished
    score: np.ndarray | None = None
    keys: np.ndarray | None = None  # keyed games: the level's keys, ascending
    first: int = 0  # the row of the level these begin at, when they are a part of it read back

    def __len__(self) -> int:
        return len(self.keys) if self.keys is not None else len(self.texts) if self.texts is not None else 0

    def holds(self, start: int, stop: int) -> bool:
        """Whether these rows include the level's rows ``start`` to ``stop``."""
        return self.first <= start and stop <= self.first + len(self)


def gather(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices ``starts[i] .. starts[i] + counts[i] - 1`` of every i, one run after another."""
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    run_starts = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
    return run_starts + np.arange(total, dtype=np.int64)


def distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct keys, ascending (numpy's unique takes seconds for a few million keys here; sorting does not)."""
    if not len(keys):
        return keys.astype(np.int64)
    ordered = np.sort(keys)
    keep = np.empty(len(ordered), dtype=np.bool_)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]
