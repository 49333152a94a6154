"""The build's status lines: counts that move within a part, an ETA that rests on the work done and does not
swing, their interval in a pipe, and compiling said as it happens (build/progress/display.py, build/progress/eta.py)."""

from __future__ import annotations

import heapq
import io
import os
import re

import pytest

from tablebase.build.progress.display import LOG_EVERY, TERMINAL_EVERY, Progress, interval

ETA = re.compile(r"  ([\d,]+)/([\d,]+) positions .*ETA (~?)(\S+)$")


def seconds_of(spelt: str) -> float:
    """A duration as the status spells it (``1h02m``, ``3m07s``, ``12.5s``), in seconds: written here from the
    spelling, not from the code that spells it."""
    found = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:([\d.]+)s)?", spelt)
    assert found and spelt, spelt
    hours, minutes, secs = (float(g) if g else 0.0 for g in found.groups())
    return 3600 * hours + 60 * minutes + secs


def simulated_build(sizes: list[int], cost: list[float], part_rows: int, workers: int, every: float,
                    told: float) -> tuple[list[tuple[float, str]], float]:
    """A build driven through ``Progress`` on a clock of its own: each level's positions in parts of at most
    ``part_rows`` (levels smaller than that together, as runs are), dealt to ``workers`` that solve a
    position of level L in ``cost[L]`` seconds, each level begun once the one below is done; each worker
    tells how far its part has got every ``told`` seconds (as each step of ``worker_events.solve_part_told``
    ends), and the status is asked for every ``every`` seconds. The lines said,
    with the time each was said at, and the time the build took."""
    # The steps: a run of small levels, or a large level's parts.
    steps: list[list[tuple[int, int, int]]] = []  # each part: (first level, last level, positions)
    run: list[int] = []
    for level, size in enumerate(sizes):
        if size < part_rows:
            run.append(level)
            if sum(sizes[lv] for lv in run) >= part_rows // 4:
                steps.append([(run[0], run[-1], sum(sizes[lv] for lv in run))])
                run = []
            continue
        if run:
            steps.append([(run[0], run[-1], sum(sizes[lv] for lv in run))])
            run = []
        parts = -(-size // part_rows)
        steps.append([(level, level, size // parts + (i < size % parts)) for i in range(parts)])
    if run:
        steps.append([(run[0], run[-1], sum(sizes[lv] for lv in run))])
    now = [0.0]
    out = io.StringIO()
    progress = Progress("t", sum(sizes), len(sizes) - 1, stream=out, every=every, clock=lambda: now[0], sizes=sizes)
    said: list[tuple[float, str]] = []
    events: list[tuple[float, int, str, tuple]] = []
    order = 0

    def at(t: float, what: str, *args: object) -> None:
        nonlocal order
        order += 1
        heapq.heappush(events, (t, order, what, args))

    t = 0.0
    part_names = 0
    for step in steps:
        free = [t] * workers
        for first, last, rows in step:
            w = min(range(workers), key=free.__getitem__)
            begun = free[w]
            seconds = sum(cost[lv] * sizes[lv] for lv in range(first, last + 1)) * rows / max(
                sum(sizes[lv] for lv in range(first, last + 1)), 1)
            part_names += 1
            name = f"part-{part_names}"
            if first == last:
                k = 1  # a step ends: told (its time is longer than the worker's quarter of an interval)
                while k * told < seconds:
                    at(begun + k * told, "solving", name, last, int(rows * k * told / seconds), k * told)
                    k += 1
            at(begun + seconds, "done", first, last, rows, seconds, name)
            free[w] = begun + seconds
        t = max(free)
    beat = every
    while beat < t + every:
        at(beat, "beat")
        beat += every
    while events:
        now[0], _, what, args = heapq.heappop(events)
        before = len(out.getvalue())
        if what == "solving":
            name, level, done, seconds = args
            progress.solving(name, level, done, seconds)
        elif what == "done":
            first, last, rows, seconds, name = args
            progress.part_done(last, rows, 1, 1, True, first=first, seconds=seconds, name=name)
        else:
            progress.heartbeat()
        said += [(now[0], line) for line in out.getvalue()[before:].splitlines()]
    return said, t


# Shaped like a partizan tree table of 8 edges: a level's positions multiply, and so does what one costs.
SIZES = [1, 3, 12, 60, 330, 2_000, 13_000, 90_000, 640_000]
COST = [1.4e-7 * 3.2 ** level for level in range(len(SIZES))]


def test_the_count_moves_within_a_part_and_the_eta_does_not_swing():
    """Large parts (65,536 positions of the top level take a worker over a minute and a half, told a step of
    8,192 at a time), uneven levels, a line every 10 s as in a log: the count never stands still for more than
    two lines, and once 5% of the positions are done each line's ETA is within a factor of 2 of the one
    before, and near the time the build really has left."""
    said, took = simulated_build(SIZES, COST, 65_536, workers=2, every=10.0, told=12.0)
    status = [(t, ETA.search(line)) for t, line in said if ETA.search(line)]
    assert 360 < took < 900 and len(status) > 30
    done = [int(found.group(1).replace(",", "")) for _, found in status]
    total = sum(SIZES)
    # The top level's parts take over a minute and a half each: between their ends, the count still moves.
    assert all(c > a for a, c in zip(done, done[2:]) if a < total), done
    etas = [(t, n, seconds_of(found.group(4))) for (t, found), n in zip(status, done) if found.group(4) != "-"]
    settled = [(t, eta) for t, n, eta in etas if n >= 0.05 * total]
    assert len(settled) > 20
    for (t0, a), (t1, b) in zip(settled, settled[1:]):
        assert b == 0 or 0.5 <= b / a <= 2.0, (t0, a, t1, b)
    # Once the top level is being solved and measured, the ETA is within a quarter of the time left.
    top = min(t for t, line in said if "part" not in line and t > 0 and ETA.search(line)
              and int(ETA.search(line).group(1).replace(",", "")) > sum(SIZES[:-1]) + 20_000)
    for t, n, eta in etas:
        if top + 30 <= t and took - t > 30:
            assert abs(eta - (took - t)) <= 0.25 * (took - t), (t, eta, took - t)


def test_positions_alone_give_the_eta_where_levels_are_not_known():
    """Without the levels' sizes (a table's index written apart), the ETA is the positions left at the rate so
    far, rough ("~") until a hundredth is done."""
    now = [0.0]
    out = io.StringIO()
    progress = Progress("t", 10_000, 5, stream=out, every=0.0, clock=lambda: now[0])
    now[0] = 2.0
    progress.solving("p", 1, 50, 2.0)  # 50 in 2 s: 25/s, 9,950 left
    now[0] = 4.0
    progress.part_done(1, 200, 1, 4, False, name="p")  # 200 in 4 s: 50/s, 9,800 left
    progress.solving("p", 1, 150, 4.0)  # a report late from a finished part is not counted again
    progress.heartbeat()
    rough, known, again = (ETA.search(line) for line in out.getvalue().splitlines())
    assert rough.group(1, 3) == ("50", "~") and seconds_of(rough.group(4)) == pytest.approx(9_950 / 25, abs=1)
    assert known.group(1, 3) == ("200", "") and seconds_of(known.group(4)) == pytest.approx(9_800 / 50, abs=1)
    assert again.group(1) == "200"


def test_a_line_every_ten_seconds_in_a_pipe_and_every_second_at_a_terminal():
    reading, writing = os.pipe()
    primary, secondary = os.openpty()
    try:
        with open(writing, "w", closefd=False) as pipe, open(secondary, "w", closefd=False) as terminal:
            assert interval(stream=pipe) == LOG_EVERY == 10.0
            assert interval(stream=terminal) == TERMINAL_EVERY == 1.0
            assert interval(asked=2.5, stream=pipe) == 2.5  # --progress-every
            assert interval(quiet=True, asked=2.5, stream=terminal) == float("inf")
    finally:
        for fd in (reading, writing, primary, secondary):
            os.close(fd)


def test_compiling_is_said_as_it_begins_and_the_status_says_it_meanwhile():
    now = [0.0]
    out = io.StringIO()
    progress = Progress("t", 816, 45, stream=out, every=1.0, clock=lambda: now[0])
    now[0] = 0.5
    progress.compiling("solve-t-0.0-run", 0.0, 0)
    assert "compiling the game's functions" in out.getvalue() and "first use on this machine" in out.getvalue()
    now[0] = 6.0
    progress.compiling("solve-t-0.0-run", 5.5, 7)
    progress.heartbeat()
    last = out.getvalue().splitlines()[-1]
    assert last == "[t] compiling the game's functions: 7 functions compiled so far, elapsed 5.5s", last
    progress.compiling("solve-t-0.0-run", 6.0, 9, over=True)
    now[0] = 8.0
    progress.heartbeat()
    assert out.getvalue().splitlines()[-1].startswith("[t] solving level 0/45  0/816 positions")
    assert out.getvalue().count("first use on this machine") == 1
