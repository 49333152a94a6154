"""How long a build has left: its positions weighted by what one costs at its level, and the answer smoothed.

A position of a high level costs more than one of a low level (more moves,
larger values), so a count of positions is a poor measure of the work left:
a build that has done most of its positions may have most of its time ahead.
``Work`` weighs each level's positions by the workers' seconds a position
took there in this run (``Work.weights``), and ``Work.eta`` smooths the
answer.
"""

from __future__ import annotations

from tablebase.lazy import np

SETTLED = 0.05  # the share of the positions done from which an ETA moves by less than a factor of 2 a line
STEP = 1.9  # that factor, less a little: the lines spell their ETAs rounded


class Work:
    """The work of a build's levels, done and left, weighed by the seconds a position costs at each level."""

    def __init__(self, sizes: list[int] | None) -> None:
        self.sizes = None if sizes is None else np.asarray(sizes, dtype=np.float64)
        self.done_at = None if sizes is None else np.zeros(len(sizes))  # positions done, by level
        self.fresh_at = None if sizes is None else np.zeros(len(sizes))  # of them, done by this run
        self.spent: dict[int, list[float]] = {}  # level -> [seconds, positions] of the parts finished there
        self.shown: float | None = None  # the ETA of the last line

    def resumed(self, levels: list[int]) -> None:
        """Levels an earlier run finished."""
        if self.done_at is not None:
            for level in levels:
                if level < len(self.done_at):
                    self.done_at[level] = self.sizes[level]

    def finished(self, first: int, last: int, rows: int, seconds: float | None) -> None:
        """A part of ``rows`` positions of levels ``first`` to ``last`` finished, its solving taking ``seconds``
        of a worker (None: not measured)."""
        if self.sizes is None:
            return
        share = self._shares(first, last, rows)
        for level, n in share.items():
            self.done_at[level] += n
            self.fresh_at[level] += n
            if seconds is not None and rows > 0:
                spent = self.spent.setdefault(level, [0.0, 0.0])
                spent[0] += seconds * n / rows
                spent[1] += n

    def _shares(self, first: int, last: int, rows: int) -> dict[int, float]:
        """A part's positions by level: a span's whole levels, or a part of one level."""
        levels = range(max(first, 0), min(last, len(self.sizes) - 1) + 1)
        if len(levels) <= 1:
            return {min(max(last, 0), len(self.sizes) - 1): float(rows)}
        sizes = self.sizes[levels.start:levels.stop]
        whole = sizes.sum()
        return {level: rows * size / whole for level, size in zip(levels, sizes.tolist()) if size}

    def weights(self, solving: list[tuple[int, int, float]]) -> np.ndarray | None:
        """The seconds a position costs at each level (``solving``: the level, positions and seconds of parts
        being solved), a level not measured taking the nearest measured one below it (the lowest measured, for
        those below that); None if nothing is measured."""
        spent = {level: list(v) for level, v in self.spent.items()}
        for level, done, seconds in solving:
            if done > 0 and level not in self.spent:  # a level's finished parts are the better measure
                at = spent.setdefault(level, [0.0, 0.0])
                at[0] += seconds
                at[1] += done
        measured = sorted(level for level, (s, n) in spent.items() if n > 0 and s > 0 and level < len(self.sizes))
        if not measured:
            return None
        weights = np.full(len(self.sizes), np.nan)
        for level in measured:
            weights[level] = spent[level][0] / spent[level][1]
        # Forward-filled from the nearest measured level below; the lowest measured stands for those below it.
        index = np.where(np.isnan(weights), 0, np.arange(len(weights)))
        np.maximum.accumulate(index, out=index)
        weights = weights[index]
        weights[:measured[0]] = spent[measured[0]][0] / spent[measured[0]][1]
        return weights

    def eta(self, done: int, total: int, fresh: int, elapsed: float, solving: list[tuple[int, int, float]]) -> float:
        """Seconds left: the work left at the rate this run has done work so far; infinite before anything is
        done in this run. Once ``SETTLED`` of the positions are done, a line's ETA is never more than twice or
        less than half the one before it, so that a new level's first figures move it over a few lines.

        ``done``, ``fresh``: the positions done, and done by this run, parts being solved included
        (``solving``: their level, positions done and seconds)."""
        raw = self._raw(done, total, fresh, elapsed, solving)
        if done >= total:
            raw = 0.0
        elif self.shown is not None and self.shown > 0 and raw != float("inf") and done >= SETTLED * total:
            raw = min(max(raw, self.shown / STEP), self.shown * STEP)
        self.shown = raw if raw != float("inf") else None
        return raw

    def _raw(self, done: int, total: int, fresh: int, elapsed: float,
             solving: list[tuple[int, int, float]]) -> float:
        if fresh <= 0 or elapsed <= 0:
            return float("inf")
        weights = None if self.sizes is None else self.weights(solving)
        if weights is None:  # nothing measured: positions at the rate so far
            return (total - done) / (fresh / elapsed)
        in_parts = np.zeros(len(self.sizes))
        for level, n, _ in solving:
            if 0 <= level < len(in_parts):
                in_parts[level] += n
        left = np.clip(self.sizes - self.done_at - in_parts, 0, None)
        worked = float(((self.fresh_at + in_parts) * weights).sum())
        if worked <= 0:
            return (total - done) / (fresh / elapsed)
        return float((left * weights).sum()) / (worked / elapsed)
