"""Values shared by the workers of one machine (build/cluster/shared_values.py), across real processes."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
import uuid

import numpy as np
import pytest
from helpers import assert_clean_error, file_hashes, require
from helpers import tablebase as tablebase_command
from oracles import Oracle, chomp_board, chomp_moves

import tablebase
from tablebase.build import build_tables, driver
from tablebase.build.cluster import shared_values
from tablebase.build.jobs import spec_for
from tablebase.builders import builder_of
from tablebase.games import make_game
from tablebase.solve.impartial import KnownValues
from tablebase.store import Piece

pytestmark = pytest.mark.slow  # other processes: see conftest.py


@pytest.fixture(autouse=True, scope="module")
def _shared_memory() -> None:
    require(None if shared_values.SHARED_MEMORY.is_dir() else "no /dev/shm on this machine")

HOLD = ("import sys; from tablebase.build.cluster import shared_values; shared_values.folder_for(sys.argv[1], 1); "
        "print('held', flush=True); sys.stdin.read()")


def _write_values(run: str, keys: list[int], values: list[int]) -> None:
    """In another process: put values into the shared arrays and mark the part they are."""
    game = make_game("chomp", {"rows": 4, "cols": 4})
    known = KnownValues(game, lambda size: shared_values.folder_for(run, size))
    folder = known.shared
    known.add(np.array(keys), np.array(values), np.array(values), None)
    shared_values.Holding(folder).mark(Piece(3, 3, 1, 2))


def _our_folders() -> set[str]:
    return {p.name for p in shared_values.SHARED_MEMORY.glob(f"{shared_values.PREFIX}*")}


def test_a_part_one_process_solved_is_held_by_the_others_without_reading():
    run = uuid.uuid4().hex
    game = make_game("chomp", {"rows": 4, "cols": 4})
    folder = shared_values.folder_for(run, game.key_space * KnownValues.bytes_per_key(game))
    try:
        assert folder is not None
        asked = []
        mine = builder_of(game).solver(lambda size: asked.append(size) or folder)
        assert mine.shared == folder
        assert asked == [game.key_space * KnownValues.bytes_per_key(game)]
        held = shared_values.Holding(folder)
        assert not held.has(Piece(3, 3, 1, 2))
        child = multiprocessing.get_context("spawn").Process(target=_write_values, args=(run, [5, 9], [7, 3]))
        child.start()
        child.join()
        assert child.exitcode == 0
        assert held.has(Piece(3, 3, 1, 2)) and not held.has(Piece(3, 3, 0, 2))
        assert mine.known.grundy[[5, 9]].tolist() == [7, 3]
        assert mine.known.remoteness[[5, 9]].tolist() == [7, 3]
    finally:
        shared_values.remove(run)
    assert not (shared_values.SHARED_MEMORY / f"{shared_values.PREFIX}{run}").exists()


def test_without_a_shared_folder_a_process_holds_only_its_own_parts():
    held = shared_values.Holding(None)
    held.mark(Piece(2, 2, 0, 2))
    assert held.has(Piece(2, 2, 0, 2)) and not held.has(Piece(2, 2, 1, 2))
    held.mark(Piece(3, 900))  # a run of levels is one mark
    assert held.has(Piece(3, 900)) and not held.has(Piece(901, 901))
    assert builder_of(make_game("chomp", {"rows": 3, "cols": 3})).solver().shared is None


def test_solvers_that_keep_their_values_in_memory_never_ask_for_a_folder():
    def refuse(size: int):
        raise AssertionError("asked for a shared folder")

    for name, params in [("wythoff", {"max": 8}), ("domineering", {"max_cells": 4}),
                         ("tanhinmin", {"max_card": 3, "max_hand": 2})]:
        assert builder_of(make_game(name, params)).solver(refuse).shared is None


def test_too_little_shared_memory_or_turned_off_means_private_arrays(monkeypatch):
    assert shared_values.folder_for(uuid.uuid4().hex, 2**62) is None
    monkeypatch.setenv("TABLEBASE_SHARED_MEMORY", "0")
    assert shared_values.folder_for(uuid.uuid4().hex, 1) is None


def test_a_build_removes_what_killed_builds_left_before_it_plans_its_shared_memory(tmp_path, monkeypatch):
    left = uuid.uuid4().hex
    subprocess.run([sys.executable, "-c", HOLD, left], stdin=subprocess.DEVNULL, check=True, capture_output=True)
    (shared_values.SHARED_MEMORY / f"{shared_values.PREFIX}{left}" / "values").write_bytes(bytes(1 << 20))
    rooms = []
    measure = shared_values.room
    monkeypatch.setattr(shared_values, "room",
                        lambda: rooms.append(f"{shared_values.PREFIX}{left}" in _our_folders()) or measure())
    try:
        list(build_tables([spec_for("chomp", {"rows": 4, "cols": 4})], tmp_path, quiet=True))  # workers in threads
        assert rooms and not any(rooms)  # the room was measured without the leftover
        assert f"{shared_values.PREFIX}{left}" not in _our_folders()
    finally:
        shared_values.remove(left)


def test_folders_left_by_killed_builds_are_removed_and_folders_in_use_kept():
    in_use, left, making, abandoned = (uuid.uuid4().hex for _ in range(4))
    holder = subprocess.Popen([sys.executable, "-c", HOLD, in_use], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        subprocess.run([sys.executable, "-c", HOLD, left], stdin=subprocess.DEVNULL, check=True, capture_output=True)
        (shared_values.SHARED_MEMORY / f"{shared_values.PREFIX}{making}").mkdir()  # lock file not made yet
        old = shared_values.SHARED_MEMORY / f"{shared_values.PREFIX}{abandoned}"
        old.mkdir()
        os.utime(old, (time.time() - 2 * shared_values.YOUNG,) * 2)

        assert shared_values.remove_unused() >= 2
        names = _our_folders()
        assert f"{shared_values.PREFIX}{in_use}" in names and f"{shared_values.PREFIX}{making}" in names
        assert f"{shared_values.PREFIX}{left}" not in names and f"{shared_values.PREFIX}{abandoned}" not in names
    finally:
        holder.stdin.close()
        holder.wait()
        for run in (in_use, left, making, abandoned):
            shared_values.remove(run)


def test_what_a_killed_run_of_the_same_build_left_is_kept_with_its_room_and_parts(tmp_path, monkeypatch):
    """A killed run's folders, on disk and in shared memory, are kept for the build of the same name: their
    room counts as this build's, their marked parts are counted; another build's are removed."""
    ours, other = shared_values.values_name(tmp_path, "t", "d", {"n": 1}, []), uuid.uuid4().hex
    assert ours == shared_values.values_name(tmp_path, "t", "d", {"n": 1}, [])  # the same build: the same name
    assert ours not in {shared_values.values_name(tmp_path / "x", "t", "d", {"n": 1}, []),
                        shared_values.values_name(tmp_path, "t", "e", {"n": 1}, []),
                        shared_values.values_name(tmp_path, "t", "d", {"n": 2}, []),
                        shared_values.values_name(tmp_path, "t", "d", {"n": 1}, ["grundy"])}
    disk = tmp_path / "values"
    for name in (ours, other):  # each left by a process that held it and ended
        subprocess.run([sys.executable, "-c", HOLD.replace("(sys.argv[1], 1)", f"(sys.argv[1], 1, {str(disk)!r})"),
                        name], stdin=subprocess.DEVNULL, check=True, capture_output=True)
    kept = disk / f"{shared_values.PREFIX}{ours}-{shared_values.machine()}"
    (kept / "grundy").write_bytes(bytes(1 << 20))
    (kept / "parts" / "1-5.0").touch()
    (kept / "parts" / "6-6.1").touch()
    monkeypatch.setattr(shared_values, "disk_room", lambda where: 1000)  # free space, whatever else writes to the disk
    try:
        _, room, parts = shared_values.clear_room(disk, ours)
        assert parts == 2 and kept.is_dir()
        assert not (disk / f"{shared_values.PREFIX}{other}-{shared_values.machine()}").exists()
        assert room >= 1000 + (1 << 20)  # the kept file's megabyte is the build's own room
        assert shared_values.clear_room(disk)[2] == 0 and not kept.exists()  # for any other build: removed
    finally:
        shared_values.remove(ours, disk)
        shared_values.remove(other, disk)


def test_a_two_worker_build_with_shared_values_is_right_and_leaves_nothing_behind(tmp_path, scheduler, monkeypatch):
    names: list[str] = []  # this build's folders' names: other builds on the machine may hold folders of their own
    solve = driver.TableBuild.solve

    def solve_and_name(build):
        names.extend([build.run, build.values_name])
        solve(build)

    monkeypatch.setattr(driver.TableBuild, "solve", solve_and_name)
    spec = spec_for("chomp", {"rows": 5, "cols": 6})
    # Small partitions: most levels are cut in parts that the two workers share out.
    list(build_tables([spec], tmp_path, scheduler=scheduler, partition_rows=8, quiet=True))
    assert names and not [f for f in _our_folders() if any(name in f for name in names)]

    oracle = Oracle(chomp_moves)
    with tablebase.open(tmp_path) as tb:
        rows = tb.sql(f"SELECT position, grundy, remoteness FROM {spec.name}").to_pylist()
    assert len(rows) == 462 - 1  # lattice paths in a 5x6 box, less the empty diagram
    for row in rows:
        board = chomp_board(row["position"])
        assert (row["grundy"], row["remoteness"]) == (oracle.grundy(board), oracle.remoteness(board))


def test_values_forced_onto_disk_build_the_same_bytes_and_leave_nothing_behind(tmp_path, scheduler, monkeypatch):
    """Chomp 9x9 with the values a machine may keep in memory capped at 0 bytes: the two worker processes map
    them from files under the output folder, share the parts each solved, and write the very files of a
    build whose values are in memory."""
    spec = spec_for("chomp", {"rows": 9, "cols": 9})
    list(build_tables([spec], tmp_path / "memory", scheduler=scheduler, partition_rows=512, quiet=True))
    seen: list[bool] = []
    disk = tmp_path / "disk"
    monkeypatch.setenv("TABLEBASE_VALUES_MEMORY", "0")
    solve = driver.TableBuild.solve

    def solve_and_look(build):  # while the workers map them: the values' files are on disk, full size
        seen.append(build.memory.on_disk)
        solve(build)
        files = list((disk / ".values").glob(f"{shared_values.PREFIX}*/grundy"))
        seen.append(len(files) == 1 and files[0].stat().st_size == make_game("chomp", {"rows": 9, "cols": 9}).key_space)

    monkeypatch.setattr(driver.TableBuild, "solve", solve_and_look)
    list(build_tables([spec], disk, scheduler=scheduler, partition_rows=512, quiet=True))
    assert seen == [True, True]
    assert file_hashes(disk / spec.name / "rows") == file_hashes(tmp_path / "memory" / spec.name / "rows")
    assert sorted(p.name for p in disk.iterdir()) == [spec.name]  # the values' folder is gone


def test_a_scratch_folder_that_is_a_file_or_has_no_room_is_refused_in_one_line(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    result = tablebase_command("build", "chomp", "--rows", 9, "--cols", 9, "--out", tmp_path / "a", "--scratch", afile)
    assert_clean_error(result, "--scratch", "is a file, not a folder")
    result = tablebase_command("build", "chomp", "--rows", 9, "--cols", 9, "--out", tmp_path / "b", "--scratch",
                               "/proc/none", env={**os.environ, "TABLEBASE_VALUES_MEMORY": "0"})
    assert_clean_error(result, "values of 0 MiB pass TABLEBASE_VALUES_MEMORY", "disk has 0 MiB free", "--scratch")
    assert not list(tmp_path.rglob("*.parquet"))
