"""A resumed build says how far its workers have got in reading solved levels back, with an ETA, and which
level it is solving, from its first second (build/progress/worker_events.py, build/progress/display.py)."""

from __future__ import annotations

import io
import re

from distributed import Client

from tablebase.build import build_tables
from tablebase.build.driver import build_table
from tablebase.build.jobs import spec_for
from tablebase.build.progress.display import Progress
from tablebase.build.progress.worker_events import Report, positions_of, topic
from tablebase.store import Manifest, Plan

READING = re.compile(r"reading ([\d,]+) solved positions back into the workers' memory: ([\d,]+) \((\d+\.\d)%\)"
                     r"  [\d,]+/s  elapsed \S+  ETA (\S+)")
SOLVING = re.compile(r"solving level (\d+)/(\d+)")


def lines(out: io.StringIO) -> list[str]:
    return out.getvalue().splitlines()


def test_the_reading_back_has_an_eta_once_a_first_measurement_is_in():
    out = io.StringIO()
    progress = Progress("t", 10_000, 5, stream=out, every=0.0, clock=lambda: 100.0)  # the reports arrive at once
    worker_seconds = 2.0  # what the worker reports it has spent: the status shows it, timing nothing here
    progress.reading("solve-t-0.0-run", 0, 1000, 0.1)
    progress.reading("solve-t-0.0-run", 250, 1000, worker_seconds)
    first, second = (READING.search(line) for line in lines(out))
    assert first.groups() == ("1,000", "0", "0.0", "-")  # nothing read yet: no rate, no ETA
    assert second.group(2, 3) == ("250", "25.0")
    # 250 positions in 2 s, on the worker's clock: 750 more take about 6 s.
    assert re.fullmatch(r"\d+\.\ds", second.group(4)) and 5.0 < float(second.group(4)[:-1]) < 6.5
    # The clock is fixed: the line is exact, its elapsed part the worker's own count of seconds.
    assert lines(out)[-1] == ("[t] reading 1,000 solved positions back into the workers' memory: 250 (25.0%)"
                              "  125/s  elapsed 2.0s  ETA 6.0s")


def test_the_status_shows_the_worker_the_step_waits_for_then_the_solving_again():
    out = io.StringIO()
    progress = Progress("t", 10_000, 5, stream=out, every=0.0)
    progress.reading("a", 900, 1000, 10.0)  # nearly done
    progress.reading("b", 100, 1000, 10.0)  # the one the step waits for: 90 s to go
    assert READING.search(lines(out)[-1]).group(2) == "100"
    progress.reading("b", 0, 1000, 0.0, over=True)
    progress.heartbeat()
    assert READING.search(lines(out)[-1]).group(2) == "900"
    progress.part_done(2, 40, 1, 2, False)  # a part finished since: solving goes on, whatever was not said
    progress.heartbeat()
    assert SOLVING.search(lines(out)[-1]).groups() == ("2", "5")


def test_other_long_work_of_a_task_is_told_by_its_name_with_its_steps_and_an_eta():
    """The probe index's passes over the rows (build/index_step.py) are told as a reading back is."""
    out = io.StringIO()
    progress = Progress("t", 10_000, 5, stream=out, every=0.0, clock=lambda: 100.0)
    progress.reading("index-t-run", 1_500, 3_000, 10.0, what="writing the probe index, 3 passes over 1,000 rows")
    # The clock is fixed: the line is exact (1,500 steps in the worker's 10 s, 1,500 more at that rate).
    assert lines(out)[-1] == ("[t] writing the probe index, 3 passes over 1,000 rows: 1,500/3,000 (50.0%)  150/s"
                              "  elapsed 10.0s  ETA 10.0s")


def test_a_resumed_progress_names_the_first_level_left():
    out = io.StringIO()
    progress = Progress("t", 100, 5, stream=out, every=0.0)
    progress.resumed(60, planned=[0, 1, 2, 4, 5], done=[0, 1, 2, 5])  # level 3 has no positions; 4 is left
    progress.heartbeat()
    assert lines(out)[-1].startswith("[t] solving level 4/5  60/100 positions (60.0%)")


def test_a_task_reports_nothing_outside_a_worker_and_counts_levels_by_runs():
    with Report("run", 10, 0.0) as report:  # a task called directly, as some tests do: no worker to tell
        report.add(10)
    assert not report.said and topic("a") != topic("b")
    plan = Plan([[0, 1, [1, 2, 0, 4]], [4, 3, [10]], [6, 1, [5, 6]]])
    assert positions_of(plan, list(range(9))) == [plan.get(level, {}).get("positions", 0) for level in range(9)]
    assert positions_of(plan, [2, 5, 7]) == [0, 0, 6]


def test_a_resumed_build_says_how_far_its_workers_have_read_back_and_the_level_left(tmp_path, scheduler, capsys):
    """Built, then its upper levels' files lost as a killed build leaves them: the resumed build's first tasks
    read every level below back, and say so with a percentage; the level it solves is never shown as 0."""
    spec = spec_for("chomp", {"rows": 10, "cols": 10})  # 184,755 positions in 100 levels
    list(build_tables([spec], tmp_path, scheduler=scheduler, partition_rows=4000, quiet=True))
    manifest = Manifest.load(tmp_path, spec.name)
    layout = manifest.layout()
    lost = [name for name in manifest.files if layout.named(name).last >= 60]
    for name in lost:
        (tmp_path / spec.name / name).unlink()
        del manifest.files[name]
    left = min(layout.named(name).first for name in lost)
    manifest.complete, manifest.probe = False, {}
    manifest.levels_done = [level for level in manifest.levels_done if level < left]
    manifest.save(tmp_path)
    capsys.readouterr()
    with Client(scheduler) as client:  # every 20 ms, so that a read back of a fraction of a second is seen
        summary = build_table(client, tmp_path, spec, 4000, every=0.02)
    err = capsys.readouterr().err
    assert summary.skipped_partitions == summary.partitions - len(lost)
    reading = [READING.search(line) for line in err.splitlines() if READING.search(line)]
    assert reading, err
    # Each worker's first task reads back every level kept (later ones, a level or two the other just solved).
    kept = sum(record["rows"] for record in manifest.files.values())
    assert max(int(found.group(1).replace(",", "")) for found in reading) == kept
    # Once anything is read, the rate and the ETA are known.
    assert all(found.group(4) != "-" for found in reading if found.group(2) != "0"), err
    solving = [int(found.group(1)) for found in map(SOLVING.search, err.splitlines()) if found]
    assert solving and min(solving) == left > 0, err
    # Then the probe index, written from the values the workers hold, is told as it begins and as it ends
    # (as it goes only where it takes longer than a line's interval).
    assert "writing the probe index from the values held: 1 task" in err, err
    assert re.search(r"probe index: [\d,]+ bytes, [\d.]+ bytes a position", err), err
