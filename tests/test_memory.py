"""Memory is planned before a build: partitions shrink to fit the workers, too-big tables are refused."""

from __future__ import annotations

import io
import itertools
import math
import random
import time

import pytest

from tablebase.build.cluster.memory_plan import (
    FRESH_WORKER,
    LISTED_PART,
    MIB,
    PROCESS_BASE,
    USABLE,
    Workers,
    listed_partition,
    local_worker_limit,
    notation_bytes,
    plan_memory,
)
from tablebase.build.plan import deal, default_partition_rows, level_sizes, plan
from tablebase.builders import builder_of
from tablebase.errors import TablebaseError
from tablebase.games import make_game
from tablebase.store import Layout, Manifest


def planned(game, rows, fixed, limit, per_machine=1, shared_room=0, disk_room=0, wide=None, machines=1):
    """The plan the driver makes for a game: its builder's footprint (figures held as ``wide`` says), its largest
    level and whether levels stay whole."""
    builder = builder_of(game)
    levels = [game.level_size(k) for k in range(game.max_level + 1)]
    footprint = builder.footprint(wide).with_notation(notation_bytes(game))
    return plan_memory(game, footprint, rows, fixed,
                       Workers(limit, per_machine, shared_room, disk_room=disk_room, machines=machines),
                       max(levels), sum(levels), builder.whole_levels)


def test_a_listed_game_of_many_moves_a_position_gets_smaller_parts():
    """A part's listing in memory stays within LISTED_PART: the largest power of two of positions that
    fits, never below the smallest partition; a partition the user fixed stands."""
    kayles_rows = 3 * (32 + 24 * 60)  # ListedPlainGame.listed_bytes at 60 moves a position
    assert listed_partition(kayles_rows) == 16_384
    for per_row in (1, 16, 384, kayles_rows, 10**5, 10**9):
        rows = listed_partition(per_row)
        assert rows & (rows - 1) == 0 and rows >= 1024
        assert rows == 1024 or (rows * per_row <= LISTED_PART < 2 * rows * per_row)
    game = make_game("chomp", dict(rows=8, cols=8))
    game.listed_bytes = kayles_rows
    assert planned(game, 65_536, fixed=False, limit=None).partition_rows == 16_384
    assert planned(game, 65_536, fixed=True, limit=None).partition_rows == 65_536


def test_partitions_shrink_to_fit_a_small_worker():
    game = make_game("chomp", dict(rows=12, cols=12))
    roomy = planned(game, 65_536, fixed=False, limit=16 * 1024 * MIB)
    # A limit whose usable part holds the worker, its values and a level read back, but not a full partition.
    fixed = (PROCESS_BASE + roomy.values + roomy.read_back) / USABLE
    small = int(fixed + 0.5 * 65_536 * roomy.per_row / USABLE)
    tight = planned(game, 65_536, fixed=False, limit=small)
    assert roomy.partition_rows == 65_536
    assert 1024 <= tight.partition_rows < 65_536 and tight.peak <= small
    # The values of a dense game cover its whole key space: a byte each for Grundy value and remoteness.
    assert roomy.values == 2 * game.key_space
    assert "memory per worker" in tight.describe() and f"{small / MIB:,.0f} MiB" in tight.describe()


def test_what_workers_hold_before_the_build_is_planned_for():
    """A worker that holds more than a fresh one between tasks (a plain game's listing leaves its heap
    fuller) adds the difference to its peak, and partitions shrink for it; one that holds less adds nothing."""
    game = make_game("chomp", dict(rows=12, cols=12))
    footprint = builder_of(game).footprint().with_notation(notation_bytes(game))
    sizes = [game.level_size(k) for k in range(game.max_level + 1)]

    def plan(at_rest, limit):
        return plan_memory(game, footprint, 65_536, False, Workers(limit, at_rest=at_rest), max(sizes), sum(sizes))

    roomy = plan(0, 16 * 1024 * MIB)
    partition = roomy.in_flight * roomy.per_row
    limit = int((roomy.peak + 100 * MIB) / USABLE)  # a whole partition and 100 MiB to spare
    more = 100 * MIB + partition // 2  # all of that, and half the partition
    fresh, fuller = plan(FRESH_WORKER // 2, limit), plan(FRESH_WORKER + more, limit)
    assert fresh.base == PROCESS_BASE and "held before" not in fresh.describe()
    assert fresh.partition_rows == roomy.partition_rows == 65_536
    assert fuller.base == PROCESS_BASE + more and "held before" in fuller.describe()
    assert 1024 <= fuller.partition_rows < 65_536 and fuller.peak <= USABLE * limit


def test_a_size_given_by_the_user_is_kept():
    game = make_game("chomp", dict(rows=12, cols=12))
    plan = planned(game, 65_536, fixed=True, limit=500 * MIB)
    assert plan.partition_rows == 65_536


def test_a_table_whose_values_fit_neither_a_worker_nor_a_disk_is_refused_in_one_line_naming_the_disk():
    game = make_game("chomp", dict(rows=16, cols=16))
    values = 2 * game.key_space  # a byte each for Grundy value and remoteness
    with pytest.raises(TablebaseError, match=r"values of 1,146 MiB fit no worker's memory, and a machine's disk has "
                                             r"1,000 MiB free for them \(wants 1,433 MiB\); .*--scratch"):
        planned(game, 65_536, fixed=False, limit=1024 * MIB, disk_room=1000 * MIB)
    assert values == 1_202_160_780 and round(values / MIB) == 1146


def test_a_partition_a_worker_cannot_hold_is_refused_even_with_values_on_disk():
    game = make_game("chomp", dict(rows=16, cols=16))
    with pytest.raises(TablebaseError, match=r"would reach about ([\d,]+) MiB with the smallest partition, more than "
                                             r"the 160 MiB it may fill \(80% of its 200 MiB limit") as refused:
        planned(game, 65_536, fixed=False, limit=200 * MIB, disk_room=10**12)
    assert int(refused.value.args[0].split("about ")[1].split(" MiB")[0].replace(",", "")) > 160


def test_values_larger_than_a_worker_go_to_each_machines_disk_and_leave_the_page_cache_its_share():
    """Chomp 18x18 on this machine (two workers of 12,053 MiB, 75 GB free on disk), and on ten such machines:
    refused today for values of 34,619 MiB; held one byte a figure they are 17,309 MiB, mapped from disk."""
    game = make_game("chomp", dict(rows=18, cols=18))
    limit, disk = 12_053 * MIB, 75 * 10**9
    values = 2 * game.key_space
    for machines in (1, 10):
        plan = planned(game, 2**25, fixed=False, limit=limit, per_machine=2, disk_room=disk, wide=frozenset(),
                       machines=machines)
        assert plan.on_disk and plan.values == values
        assert plan.peak <= USABLE * limit  # values on disk are not in a worker's peak
        # Each worker leaves half of the values' bytes to the machine's page cache.
        assert plan.peak + values / 2 <= USABLE * limit or plan.partition_rows == 2**20
        assert plan.machine_peak == 2 * plan.peak and plan.machine_peak + values <= 2 * limit
        text = plan.describe()
        assert "on each machine's disk" in text and "page cache wanted on each machine: 17,309 MiB" in text
        assert f"disk: 17,309 MiB of values on each of {machines} machine" in text
    # The same values the bounds' types would hold (two bytes a figure) fit a disk of 75 GB too.
    assert planned(game, 2**25, fixed=False, limit=limit, per_machine=2, disk_room=disk).values == 2 * values
    with pytest.raises(TablebaseError, match="a machine's disk has"):
        planned(game, 2**25, fixed=False, limit=limit, per_machine=2, disk_room=20 * 10**9, wide=frozenset())


def test_values_memory_cap_sends_a_small_tables_values_to_disk(monkeypatch):
    game = make_game("chomp", dict(rows=9, cols=9))
    assert not planned(game, 65_536, fixed=False, limit=1024 * MIB, disk_room=10**9).on_disk
    monkeypatch.setenv("TABLEBASE_VALUES_MEMORY", "0")
    plan = planned(game, 65_536, fixed=False, limit=1024 * MIB, disk_room=10**9)
    # One machine sharing the values: a part's file is written while the next part solves, two in flight.
    assert plan.behind and plan.partitions == 2
    assert plan.on_disk and plan.peak == PROCESS_BASE + plan.read_back + 2 * plan.in_flight * plan.per_row
    # Machines that do not share: a level's files are read by the others, so they are written before it ends.
    apart = planned(game, 65_536, fixed=False, limit=1024 * MIB, disk_room=10**9, machines=2)
    assert not apart.behind and apart.peak == PROCESS_BASE + apart.read_back + apart.in_flight * apart.per_row


def test_levels_are_cut_into_even_parts_that_cover_them():
    game = make_game("chomp", dict(rows=10, cols=10))
    levels = plan(level_sizes(game), 4096)
    assert sum(v["positions"] for v in levels.values()) == game.key_space - 1  # all but the empty bar
    for level, v in levels.items():
        assert v["positions"] == game.level_size(level)
        if v["positions"] >= 1024:  # a quarter partition or more: never one task alone
            assert v["parts"] % 2 == 0 and v["positions"] / v["parts"] <= 4096
        else:
            assert v["parts"] == 1


def test_large_tables_get_larger_partitions():
    small, large = make_game("chomp", dict(rows=8, cols=8)), make_game("chomp", dict(rows=16, cols=16))
    assert default_partition_rows(level_sizes(small)) == 65_536
    rows = default_partition_rows(level_sizes(large))
    partitions = sum(v["parts"] for v in plan(level_sizes(large), rows).values())
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


def test_each_kind_plans_its_own_solvers_memory():
    """A scored game's solver keeps five 16-bit figures per key, a dense impartial one a byte or two a figure,
    a partizan one Python objects per position read: the plan counts what each kind's solver holds."""
    tanhinmin = make_game("tanhinmin", dict(max_card=6, max_hand=5))
    scored = planned(tanhinmin, 65_536, fixed=False, limit=None)
    assert scored.values == 10 * tanhinmin.key_space
    # Its levels are solved whole: the partition in flight is the largest level, however small the partitions.
    largest = max(tanhinmin.level_size(k) for k in range(tanhinmin.max_level + 1))
    assert scored.in_flight == largest and planned(tanhinmin, 1024, fixed=False, limit=None).in_flight == largest
    domineering = make_game("domineering", dict(max_cells=8))
    total = sum(domineering.level_size(k) for k in range(domineering.max_level + 1))
    assert planned(domineering, 65_536, fixed=False, limit=None).values == total * builder_of(domineering).footprint(
        ).per_key  # sparse: what is read by the end, not a key space


def test_a_level_solved_whole_that_cannot_fit_is_refused_up_front():
    game = make_game("tanhinmin", dict(max_card=8, max_hand=6))
    with pytest.raises(TablebaseError, match=r"would reach about ([\d,]+) MiB with its largest level, 26,501,904 "
                                             r"positions solved whole, more than the 1,638 MiB it may fill") as refused:
        planned(game, 65_536, fixed=False, limit=2048 * MIB)
    need = int(refused.value.args[0].split("about ")[1].split(" MiB")[0].replace(",", ""))
    assert need > 1638  # the need said is more than the worker may fill, never less


def test_values_shared_on_a_machine_are_planned_once_per_machine():
    """Chomp 17x17's values (two 16-bit figures for each of 2,333,606,220 keys) on this 24 GiB machine with two
    workers: each worker maps them, so each limit holds them, and the machine holds them once."""
    game = make_game("chomp", dict(rows=17, cols=17))
    footprint = builder_of(game).footprint()
    machine, values = 2 * 12_053 * MIB, game.key_space * footprint.per_key
    even = machine // 2
    # Held at the bounds' types, they fit no worker of an even split: they would go to disk, and there is none.
    with pytest.raises(TablebaseError, match="fit no worker's memory, and a machine's disk has 0 MiB free"):
        planned(game, 65_536, fixed=False, limit=even, per_machine=2, shared_room=machine // 2)
    limit = values + (machine - values) // 2
    assert local_worker_limit(machine, 2, values) in (limit, even)  # even where this machine's /dev/shm is small
    plan = planned(game, 65_536, fixed=False, limit=limit, per_machine=2, shared_room=machine // 2)
    assert plan.shared and plan.peak <= USABLE * limit
    # The machine: one copy of the values and two workers' own memory.
    assert plan.machine_peak == values + 2 * (plan.peak - values) <= machine
    assert "one copy per machine shared by its workers" in plan.describe()
    unshared = planned(game, 65_536, fixed=False, limit=limit, per_machine=2, shared_room=0)
    assert not unshared.shared and unshared.machine_peak == 2 * unshared.peak


def test_the_plan_counts_the_notation_measured_on_the_middle_level():
    """Chomp 4x6: the diagrams of 12 squares, lexicographic by row lengths, enumerated here without ranks."""
    game = make_game("chomp", dict(rows=4, cols=6))
    diagrams = sorted(p for p in itertools.product(range(7), repeat=4)
                      if sum(p) == 12 and list(p) == sorted(p, reverse=True))
    texts = [" ".join(str(v) for v in p if v) for p in diagrams][:64]
    assert notation_bytes(game) == int(sum(map(len, texts)) / len(texts))
    footprint = builder_of(game).footprint()
    assert footprint.per_notation_byte > 0
    assert footprint.with_notation(10).per_row == footprint.per_row + 10 * footprint.per_notation_byte
    domineering = make_game("domineering", dict(max_cells=8))
    assert builder_of(domineering).footprint().per_notation_byte == 0  # partizan rows are counted whole


def test_a_plan_kept_as_runs_answers_level_by_level_as_its_rules_say(tmp_path):
    """The rules, level by level: a level of a quarter partition or more is cut into an even number of
    parts of at most a partition; smaller ones join the run before them while it holds a partition."""
    rng = random.Random(7)
    sizes = [rng.choice([0, 0, 1, 3, 50, 300, 1000, 5000]) for _ in range(400)] + [0, 0]
    rows = 1024
    expected, run, span_rows = {}, None, 0
    for level, size in enumerate(sizes):
        if size >= rows // 4:
            parts = 2 * math.ceil(size / (2 * rows))
            expected[level], run, span_rows = {"positions": size, "parts": parts, "span": level}, None, 0
            continue
        if not size:
            continue
        if run is None or span_rows + size > rows:
            run, span_rows = level, 0
        span_rows += size
        expected[level] = {"positions": size, "parts": 1, "span": run}
    planned_ = plan(sizes, rows)
    assert dict(planned_.items()) == expected and list(planned_) == sorted(expected) and len(planned_) == len(expected)
    assert all(level not in planned_ for level, size in enumerate(sizes) if not size)
    layout = Layout(planned_)
    for level in range(len(sizes) + 3):
        holding = [p for p in layout.pieces if p.first <= level <= p.last] if level in expected else []
        assert layout.of_level(level) == holding
    for piece in layout.pieces:
        assert planned_.sizes(piece.first, piece.last) == [(lv, sizes[lv]) for lv in piece.levels if sizes[lv]]
    some = {p.name for p in layout.pieces[::3]}
    assert layout.levels_held(some) == sorted(lv for lv in expected if all(
        p.name in some for p in layout.pieces if p.first <= lv <= p.last))
    saved = Manifest(table="t", game="g", kind="impartial", params={}, version="v", partition_rows=rows, plan=planned_)
    saved.save(tmp_path)
    assert dict(Manifest.load(tmp_path, "t").plan.items()) == expected


def test_a_slow_count_of_positions_says_how_far_it_is():
    """A game that counts a level by listing it may take seconds a level: the count is never silent."""
    class Slow:
        name, max_level, pause = "slow", 2, 0.7

        def level_size(self, level: int) -> int:
            time.sleep(self.pause)
            return level + 1

    said: list[str] = []
    assert level_sizes(Slow(), said.append) == [1, 2, 3]
    assert said and all(line.startswith("counting positions: level ") for line in said)
    Slow.pause = 0
    assert level_sizes(Slow(), said.append, enough=2) == [1, 2]


def test_the_build_speaks_while_a_level_takes_long():
    """Between finished partitions, the status is said again once a second: how far, how long, the ETA."""
    from tablebase.build.progress.display import Progress

    out = io.StringIO()
    progress = Progress("t", 100, 5, stream=out, every=0.0)
    progress.heartbeat()
    progress.part_done(2, 40, 1, 1, True)
    progress.heartbeat()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("[t] solving level 0/5  0/100 positions (0.0%)")
    assert lines[-1].startswith("[t] solving level 3/5  40/100 positions (40.0%)") and "ETA" in lines[-1]


def test_the_eta_is_there_from_the_first_part_and_rough_until_a_hundredth_is_done():
    """No ETA before anything is done; from the first part, the rate so far, marked "~" while under 1%."""
    from tablebase.build.progress.display import Progress
    from tablebase.build.progress.display import _duration as spelt

    now = [0.0]
    out = io.StringIO()
    progress = Progress("t", 10_000, 5, stream=out, every=0.0, clock=lambda: now[0])
    now[0] = 1.0
    progress.heartbeat()
    now[0] = 2.0
    progress.part_done(1, 50, 1, 4, False)  # 50 in 2 s: 25/s, 9,950 left
    now[0] = 4.0
    progress.part_done(1, 150, 2, 4, False)  # 200 in 4 s: 50/s, 9,800 left
    first, rough, known = (line.rsplit("ETA ", 1)[1] for line in out.getvalue().splitlines())
    assert first == "-"
    assert rough == "~" + spelt(9_950 / 25)  # the positions left over the rate so far
    assert known == spelt(9_800 / 50)
