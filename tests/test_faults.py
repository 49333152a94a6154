"""Builds that survive faults: a worker killed, the driver killed or interrupted, a second build refused.

Each test really does it to real processes and checks that the finished table is
byte-identical to an undisturbed build of the same table.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers import assert_clean_error, file_hashes, tablebase
from test_distributed import DASK, free_port, wait_for_workers

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py

GAME = ["chomp", "--rows", "13", "--cols", "13"]  # 10,400,599 positions: still building seconds after 40 parts
PARAMS = dict(rows=13, cols=13)
PARTITION_ROWS = 16000


def start_build(out: Path, *extra: str, env: dict[str, str] | None = None, game: list[str] = GAME) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tablebase", "build", *game, "--out", str(out),
         "--partition-rows", str(PARTITION_ROWS), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
        # A child inherits an ignored SIGINT, and Python then keeps ignoring it:
        # the build must start with the default, as from a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def wait_for_files(table: Path, at_least: int, proc: subprocess.Popen, timeout: float = 120) -> None:
    """Until the manifest records some finished partitions, while the build still runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the build ended before the fault could be injected"
        try:
            manifest = json.loads((table / "_manifest.json").read_text())
        except (OSError, ValueError):
            manifest = None
        if manifest is not None and len(manifest["files"]) >= at_least:
            assert not manifest["complete"], "the build finished before the fault could be injected"
            return
        time.sleep(0.05)
    raise AssertionError("no progress")


def ended(build: subprocess.Popen, address: str, timeout: float = 300) -> tuple[str, str]:
    """The output of a build on the cluster at ``address`` once it ends; one that has not ended in time fails
    the test with the scheduler's unfinished tasks and the build's last lines, which say where it stopped."""
    try:
        return build.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        from distributed import Client

        def unfinished(dask_scheduler=None):
            return {"workers": {a: str(w.status) for a, w in dask_scheduler.workers.items()},
                    "tasks": sorted((str(k), t.state, str(t.processing_on), sorted(t.worker_restrictions or ()))
                                    for k, t in dask_scheduler.tasks.items()
                                    if t.state not in ("memory", "released", "forgotten"))[:40]}

        with Client(address, timeout=30) as client:
            tasks = client.run_on_scheduler(unfinished)
        build.kill()
        _, err = build.communicate()
        pytest.fail(f"the build had not ended after {timeout:.0f} s; on the scheduler: {tasks}\n{err[-2000:]}")


def kill_holding_awaited_results(address: str, worker: subprocess.Popen, build: subprocess.Popen) -> None:
    """Kill the worker once it holds the results of finished tasks that a task not yet started needs (most
    of the time it does): the scheduler must then compute them again."""
    from distributed import Client

    def holds_awaited(pid, dask_scheduler=None):
        return any(d.state == "waiting" for w in dask_scheduler.workers.values() if w.pid == pid
                   for task in w.has_what for d in task.dependents)

    with Client(address, timeout=30) as client:
        deadline = time.monotonic() + 60
        while not client.run_on_scheduler(holds_awaited, worker.pid):
            assert build.poll() is None and time.monotonic() < deadline, "no worker held results awaited"
            time.sleep(0.005)
        os.kill(worker.pid, signal.SIGKILL)


def file_identities(table: Path) -> dict[str, tuple[int, int]]:
    """The inode and modification time of each file the manifest records."""
    names = json.loads((table / "_manifest.json").read_text())["files"]
    return {name: (st.st_ino, st.st_mtime_ns) for name in names for st in [(table / name).stat()]}


def assert_no_half_files(table: Path) -> None:
    for path in table.glob("level=*/part-*.parquet"):
        pq.read_metadata(path)  # a file under its final name is always whole


@pytest.fixture(scope="module")
def undisturbed(built):
    root, name = built("chomp", partition_rows=PARTITION_ROWS, **PARAMS)
    return file_hashes(root / name)


@pytest.mark.parametrize("on_disk", [False, True], ids=["values-in-memory", "values-on-disk"])
def test_driver_killed_mid_level_resumes_to_identical_files(tmp_path, undisturbed, on_disk):
    """With values on disk (as when they fit no worker), the resumed build maps the values files the killed
    one left on this machine and reads back only the parts they lack; once whole, it removes them."""
    table = tmp_path / "chomp_13x13"
    env = {"TABLEBASE_VALUES_MEMORY": "0"} if on_disk else None
    proc = start_build(tmp_path, env=env)
    wait_for_files(table, 40, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert_no_half_files(table)
    assert (table / ".lock").exists()  # left behind by the killed build: stale, not blocking
    assert (tmp_path / ".values").is_dir() == on_disk
    resumed = start_build(tmp_path, env=env)
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    summary = json.loads(out)
    assert 0 < summary["skipped_partitions"] < summary["partitions"]
    assert f"({summary['skipped_partitions']} already built, skipped)" in err
    assert ("on each machine's disk" in err) == on_disk
    assert ("kept on this machine from the last run" in err) == on_disk
    assert file_hashes(table) == undisturbed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chomp_13x13"]


def test_ctrl_c_stops_cleanly_and_resumes(tmp_path, undisturbed):
    table = tmp_path / "chomp_13x13"
    proc = start_build(tmp_path)
    wait_for_files(table, 40, proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert "interrupted; run the same command again to resume" in err and "Traceback" not in err, err
    assert not (table / ".lock").exists()
    manifest = json.loads((table / "_manifest.json").read_text())
    assert not manifest["complete"] and manifest["files"]
    resumed = start_build(tmp_path)
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert json.loads(out)["skipped_partitions"] >= len(manifest["files"])
    assert file_hashes(table) == undisturbed


def test_a_second_build_is_refused_while_the_first_runs(tmp_path, built):
    # A larger table than the other tests': a smaller one can be built in about the time the second command
    # takes to start, and this one must still be building when it asks for the table's lock.
    larger = ["chomp", "--rows", "14", "--cols", "14"]
    first = start_build(tmp_path, game=larger)
    wait_for_files(tmp_path / "chomp_14x14", 1, first)
    second = tablebase("build", *larger, "--out", tmp_path, "--partition-rows", PARTITION_ROWS)
    assert_clean_error(second, "being built by process", str(first.pid))
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    root, name = built("chomp", partition_rows=PARTITION_ROWS, rows=14, cols=14)
    assert file_hashes(tmp_path / "chomp_14x14") == file_hashes(root / name)


def test_a_worker_killed_mid_level_does_not_change_the_table(tmp_path, undisturbed):
    """Nor are the files recorded before it solved again: the scheduler computes again the tasks whose
    results the lost worker held, and through their arguments every step below them, which find their files
    recorded and return at once."""
    address = f"tcp://127.0.0.1:{free_port()}"
    port = address.rsplit(":", 1)[1]
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scheduler = subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"], **quiet)
    workers = [
        subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"], **quiet)
        for _ in range(2)
    ]
    try:
        wait_for_workers(address, 2)
        build = start_build(tmp_path, "--scheduler", address)
        wait_for_files(tmp_path / "chomp_13x13", 40, build)
        recorded = file_identities(tmp_path / "chomp_13x13")
        kill_holding_awaited_results(address, workers[0], build)
        out, err = ended(build, address)
        assert build.returncode == 0, err
        assert workers[0].wait() == -signal.SIGKILL
        assert file_hashes(tmp_path / "chomp_13x13") == undisturbed
        now = file_identities(tmp_path / "chomp_13x13")
        assert {name: now[name] for name in recorded} == recorded  # each written once: atomic writes rename
        assert not list((tmp_path / "chomp_13x13").rglob("*.tmp-*"))
    finally:
        for p in workers + [scheduler]:
            if p.poll() is None:
                p.terminate()
            p.wait(timeout=30)


def test_the_only_worker_restarted_by_its_nanny_mid_level_does_not_stall_the_build(tmp_path, undisturbed):
    """Tasks dealt to a worker wait for it; its nanny brings it back at a new address, and Dask alone would
    leave them waiting for the old one for ever (no other worker was running when it went)."""
    import psutil

    address = f"tcp://127.0.0.1:{free_port()}"
    port = address.rsplit(":", 1)[1]
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scheduler = subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"], **quiet)
    nanny = subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-dashboard"], **quiet)
    try:
        wait_for_workers(address, 1)
        build = start_build(tmp_path, "--scheduler", address)
        wait_for_files(tmp_path / "chomp_13x13", 40, build)
        worker, = [p for p in psutil.Process(nanny.pid).children() if "spawn_main" in " ".join(p.cmdline())]
        worker.kill()
        out, err = ended(build, address)
        assert build.returncode == 0, err
        assert "placed on the others" in err
        assert file_hashes(tmp_path / "chomp_13x13") == undisturbed
    finally:
        for p in (nanny, scheduler):
            if p.poll() is None:
                p.terminate()
            p.wait(timeout=30)


def test_a_table_started_while_the_workers_are_restarting_waits_for_them():
    """A nanny restarting the workers it killed leaves the scheduler none for a moment; a job's next table
    starting then waits for one to join, where it had ended with "the cluster has no workers"."""
    from distributed import Client

    from tablebase.build.cluster.start import cluster_workers

    address = f"tcp://127.0.0.1:{free_port()}"
    port = address.rsplit(":", 1)[1]
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scheduler = subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"], **quiet)
    nanny = None
    try:
        with Client(address, timeout="30s") as client:
            nanny = subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-dashboard"], **quiet)
            assert client.scheduler_info()["workers"] == {}  # the worker takes seconds to join
            assert len(cluster_workers(client).addresses) == 1
    finally:
        for p in (nanny, scheduler):
            if p is not None and p.poll() is None:
                p.terminate()
            if p is not None:
                p.wait(timeout=30)


def test_a_worker_paused_for_memory_it_keeps_is_freed_then_restarted():
    """A worker Dask paused for memory runs no task, so nothing it holds is freed by a task: first its
    allocators hand back what they keep; a worker still paused after the patience is restarted."""
    from distributed import Client, LocalCluster

    from tablebase.build.cluster.lost_workers import PAUSED_PATIENCE, restart_paused

    limit = 600 * 2**20

    def ballast(limit: int) -> None:  # memory a task left held: the worker cannot free it by itself
        import builtins

        import psutil
        builtins.ballast = b"\x01" * (int(0.88 * limit) - psutil.Process().memory_info().rss)

    def status(client: Client) -> list[str]:
        return [w["status"] for w in client.scheduler_info()["workers"].values()]

    with LocalCluster(n_workers=1, threads_per_worker=1, memory_limit=limit, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        before, = client.scheduler_info()["workers"]
        client.run(ballast, limit)
        deadline = time.monotonic() + 30
        while status(client) != ["paused"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status(client) == ["paused"]
        since: dict[str, float] = {}
        assert restart_paused(client, since, 0.0) == []  # freed what the heap kept: not enough here
        assert since == {before: 0.0}
        assert restart_paused(client, since, PAUSED_PATIENCE) == [before]
        client.wait_for_workers(1, timeout=60)
        deadline = time.monotonic() + 30
        while status(client) != ["running"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status(client) == ["running"]
        assert client.submit(sum, [1, 2], pure=False).result(timeout=30) == 3
        assert since == {}


def _built_despite_a_loss(tmp_path, scheduler, monkeypatch, capsys, rows: int, module: str, losing) -> str:
    """Chomp ``rows`` x ``rows`` built undisturbed, then again with ``losing`` in place of ``records_of`` in
    ``tablebase.build.<module>``: the two tables must be the same bytes, probe index included. What the
    second build said."""
    import importlib

    from distributed import Client

    from tablebase.build import driver
    from tablebase.build.jobs import spec_for

    spec = spec_for("chomp", {"rows": rows, "cols": rows})
    with Client(scheduler) as client:
        driver.build_table(client, tmp_path / "undisturbed", spec, 300)
    monkeypatch.setattr(importlib.import_module(f"tablebase.build.{module}"), "records_of", losing)
    capsys.readouterr()
    with Client(scheduler) as client:
        driver.build_table(client, tmp_path / "lost", spec, 300)
    said = capsys.readouterr().err
    lost = file_hashes(tmp_path / "lost" / spec.name)
    assert "probe.tbi" in lost and lost == file_hashes(tmp_path / "undisturbed" / spec.name)
    return said


def test_a_task_whose_records_were_lost_with_its_worker_is_solved_again(tmp_path, scheduler, monkeypatch, capsys):
    """A task finished, then the worker holding its records died before they were fetched (the fetch times
    out): the driver submits it once more on its own, and the table is the one an undisturbed build writes.
    The loss is made where the driver meets it, in ``records_of``: the first time a task of level 20 is asked
    for its records, the records are dropped and the loss raised as a dead worker's would be."""
    from tablebase.build.cluster.failures import RecordsLost, records_of

    lost: list[str] = []

    def losing(future, table, levels=None, limit=None, **options):
        if not lost and levels and min(levels) <= 20 <= max(levels):
            records_of(future, table, levels, limit, **options)  # it did finish
            lost.append(future.key)
            raise RecordsLost(f"{table}: the worker that solved level 20 was lost before its records were fetched")
        return records_of(future, table, levels, limit, **options)

    said = _built_despite_a_loss(tmp_path, scheduler, monkeypatch, capsys, 8, "driver", losing)
    assert lost and "was lost: solving them again" in said


def test_a_part_of_the_probe_index_lost_with_its_worker_is_written_again(tmp_path, scheduler, monkeypatch, capsys):
    """The probe index's parts are waited for as the solve's tasks are: a part whose worker died holding its
    records is submitted once more, and the index is the one an undisturbed build writes. The loss is made
    where the index's driver meets it, in ``records_of``, for the first part it asks for."""
    from tablebase.build.cluster.failures import RecordsLost, records_of

    lost: list[str] = []

    def losing(future, table, levels=None, limit=None, **options):
        records = records_of(future, table, levels, limit, **options)  # it did finish
        if not lost:
            lost.append(future.key)
            raise RecordsLost(f"{table}: the worker writing a part of the index was lost before its records were "
                              "fetched")
        return records

    said = _built_despite_a_loss(tmp_path, scheduler, monkeypatch, capsys, 6, "index_step", losing)
    assert lost and "was lost: writing that part again" in said


def test_a_part_of_the_probe_index_lost_twice_stops_the_build_in_one_line(tmp_path, scheduler, monkeypatch):
    """A part lost again after it was submitted once more stops the build, saying that it resumes."""
    from distributed import Client

    from tablebase.build import driver, index_step
    from tablebase.build.cluster.failures import RecordsLost, records_of
    from tablebase.build.jobs import spec_for
    from tablebase.errors import BuildError

    def always_losing(future, table, levels=None, limit=None, **options):
        records_of(future, table, levels, limit, **options)
        raise RecordsLost(f"{table}: the worker writing a part of the index was lost before its records were fetched"
                          "; run the same command again to resume")

    monkeypatch.setattr(index_step, "records_of", always_losing)
    spec = spec_for("chomp", {"rows": 5, "cols": 5})
    with Client(scheduler) as client, pytest.raises(BuildError, match="run the same command again to resume"):
        driver.build_table(client, tmp_path, spec, 300)
