"""Tanhinmin end to end: the full build (retrograde analysis) against the linear-time winner rule.

    python benchmarks/bench_tanhinmin.py                      # max-card 8, max-hand 6
    python benchmarks/bench_tanhinmin.py --sizes 8x6,6x9      # several tables, KxH

For each size: the build's wall time through a local Dask cluster, positions
per second, peak memory of the driver and its workers, bytes per position on
disk and the number of draws stored; then Kitani and Ono's rule (compiled, one
core) deciding the winner of the same positions, its time, the ratio, and
whether it agrees with every stored outcome. Figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).parent))

from common import PeakMemory, report  # noqa: E402

import tablebase  # noqa: E402
from tablebase.build import build_tables  # noqa: E402
from tablebase.build.jobs import spec_for  # noqa: E402
from tablebase.store import level_files, read_parquet  # noqa: E402


@numba.njit(cache=True)
def _mu(ys, ny, zs, nz):
    """Greedy count of disjoint pairs z < y, both lists increasing."""
    pairs = 0
    j = 0
    for i in range(ny):
        if j < nz and zs[j] < ys[i]:
            pairs += 1
            j += 1
    return pairs


@numba.njit(cache=True)
def _rule_wins(keys, hands, fields, cards_up, sizes):
    """Kitani and Ono: the mover wins iff mu(mover, opponent- + field) > mu(opponent, mover-)."""
    out = np.empty(keys.shape[0], dtype=np.bool_)
    zs = np.empty(cards_up.shape[1] + 1, dtype=np.int64)
    for t in range(keys.shape[0]):
        f = keys[t] % fields
        a, b = keys[t] // fields // hands, keys[t] // fields % hands
        na, nb = sizes[a], sizes[b]
        if na == 0 or nb == 0:
            out[t] = na == 0 and nb > 0  # the mover has gone out
            continue
        # the opponent's hand less its weakest card, with the field card merged in
        m = 0
        placed = False
        for i in range(1, nb):
            c = cards_up[b, i]
            if not placed and f <= c:
                zs[m] = f
                m += 1
                placed = True
            zs[m] = c
            m += 1
        if not placed:
            zs[m] = f
            m += 1
        out[t] = _mu(cards_up[a], na, zs, m) > _mu(cards_up[b], nb, cards_up[a, 1:], na - 1)
    return out


def bench(top: int, most: int, workers: int) -> None:
    with tempfile.TemporaryDirectory() as out, PeakMemory() as memory:
        root = Path(out)
        spec = spec_for("tanhinmin", {"max_card": top, "max_hand": most})
        began = time.perf_counter()
        (summary,) = build_tables([spec], root, workers=workers, quiet=True)
        wall = time.perf_counter() - began
        n = summary.positions
        with tablebase.open(root) as tb:
            draws = tb.sql(f"SELECT count(*) AS n FROM {spec.name} WHERE outcome = 'D'").to_pylist()[0]["n"]
        report(
            f"build tanhinmin {top}x{most}", positions=n, wall_s=round(wall, 2),
            positions_per_s=int(n / wall), peak_mib=int(memory.mib),
            bytes_per_position=round(summary.bytes / n, 3), draws=draws,
        )

        game = spec.game
        args = (game.hands, game.fields, game.cards_up, game.sizes)
        _rule_wins(game.level_keys(1, 0, 1), *args)  # compile outside the clock
        rule_s, disagree = 0.0, 0
        for level in range(game.max_level + 1):
            keys = game.level_keys(level, 0, game.level_size(level))
            began = time.perf_counter()
            wins = _rule_wins(keys, *args)
            rule_s += time.perf_counter() - began
            stored = read_parquet(level_files(root, spec.name, level), ["key", "outcome"])
            won = pc.equal(stored["outcome"].cast("string"), "N").to_numpy(zero_copy_only=False)
            assert np.array_equal(stored["key"].to_numpy(), keys)
            # (both hands empty is stored as lost; the rule has nothing to say there)
            disagree += int(np.count_nonzero(wins != won))
        report(
            f"rule tanhinmin {top}x{most}", positions=n, seconds=round(rule_s, 3),
            positions_per_s=int(n / max(rule_s, 1e-9)), build_over_rule=round(wall / max(rule_s, 1e-9), 1),
            disagreements=disagree,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8x6", help="comma-separated KxH: strongest card x cards per hand")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    for size in args.sizes.split(","):
        top, most = (int(x) for x in size.lower().split("x"))
        bench(top, most, args.workers)


if __name__ == "__main__":
    main()
