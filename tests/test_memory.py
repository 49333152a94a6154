"""Memory is planned before a build: partitions shrink to fit the workers, too-big tables are refused."""

from __future__ import annotations

import pytest

from tablebase.build.memory import MIB, plan_memory
from tablebase.build.plan import deal, default_partition_rows, plan
from tablebase.errors import TablebaseError
from tablebase.games import make_game
from tablebase.kinds import kind_of


def planned(game, rows, fixed, limit):
    levels = [game.level_size(k) for k in range(game.max_level + 1)]
    return plan_memory(game, kind_of(game).footprint(game), rows, fixed, limit, max(levels), sum(levels))


def test_partitions_shrink_to_fit_a_small_worker():
    game = make_game("chomp", dict(rows=12, cols=12))
    roomy = planned(game, 65_536, fixed=False, limit=16 * 1024 * MIB)
    tight = planned(game, 65_536, fixed=False, limit=390 * MIB)
    assert roomy.partition_rows == 65_536
    assert 1024 <= tight.partition_rows < 65_536 and tight.peak <= 390 * MIB
    # The values of a dense game cover its whole key space: a byte each for Grundy value and remoteness.
    assert roomy.values == 2 * game.key_space
    assert "memory per worker" in tight.describe() and "390 MiB" in tight.describe()


def test_a_size_given_by_the_user_is_kept():
    game = make_game("chomp", dict(rows=12, cols=12))
    plan = planned(game, 65_536, fixed=True, limit=500 * MIB)
    assert plan.partition_rows == 65_536


def test_a_table_whose_values_cannot_fit_is_refused():
    game = make_game("chomp", dict(rows=16, cols=16))
    with pytest.raises(TablebaseError, match="would need about .* MiB but has 1,024 MiB"):
        planned(game, 65_536, fixed=False, limit=1024 * MIB)


def test_levels_are_cut_into_even_parts_that_cover_them():
    game = make_game("chomp", dict(rows=10, cols=10))
    levels = plan(game, 4096)
    assert sum(v["positions"] for v in levels.values()) == game.key_space - 1  # all but the empty bar
    for level, v in levels.items():
        assert v["positions"] == game.level_size(level)
        if v["positions"] >= 1024:  # a quarter partition or more: never one task alone
            assert v["parts"] % 2 == 0 and v["positions"] / v["parts"] <= 4096
        else:
            assert v["parts"] == 1


def test_large_tables_get_larger_partitions():
    small, large = make_game("chomp", dict(rows=8, cols=8)), make_game("chomp", dict(rows=16, cols=16))
    assert default_partition_rows(small) == 65_536
    rows = default_partition_rows(large)
    partitions = sum(v["parts"] for v in plan(large, rows).values())
    assert rows > 65_536 and 256 <= partitions <= 1024


def test_a_steps_partitions_are_dealt_one_task_per_worker():
    step = [[(40, part, part * 10, part * 10 + 10)] for part in range(6)]
    tasks = deal(step, 2)
    assert [[s[1] for s in task] for task in tasks] == [[0, 2, 4], [1, 3, 5]]
    assert sorted(s for task in deal(step, 4) for s in task) == [s for task in step for s in task]
    assert len(deal(step, 4)) == 4
    assert deal(step[:2], 2) == step[:2]  # no more tasks than workers: as planned
    small_levels = [[(1, 0, 0, 1), (2, 0, 0, 2)]]
    assert deal(small_levels, 2) == small_levels
