"""Builds on hosts apart: a scheduler, two workers and a driver, each in a network namespace of its own.

Each worker has a private /dev/shm; the only thing the hosts share is the output
folder, as machines share a network file system. Faults are done for real: a
link pulled, a worker killed by its nanny, the scheduler killed, the output's
file system full. Each ends in a table byte-identical to a one-process build, or
in one line that says what happened and that the same command resumes.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import file_hashes, require, tablebase
from hosts import Hosts, usable
from test_faults import assert_no_half_files, wait_for_files

pytestmark = pytest.mark.slow  # other hosts: see conftest.py


@pytest.fixture(autouse=True, scope="module")
def _hosts_can_be_made() -> None:
    why = usable()
    require(None if why is None else f"separate hosts cannot be made: {why}")

PLUGINS = Path(__file__).parent / "plugins"
CHOMP = ["chomp", "--rows", "12", "--cols", "12", "--partition-rows", "16000"]  # long enough to be disturbed
TABLE = "chomp_12x12"


def local_build(out: Path, *game: str) -> dict[str, str]:
    """The table built by one worker process on this host, undisturbed: what every build must equal."""
    result = tablebase("build", *game, "--out", out, "--workers", 1, "--quiet")
    assert result.returncode == 0, result.stderr
    return file_hashes(out / json.loads(result.stdout.splitlines()[-1])["table"])


@pytest.fixture(scope="module")
def undisturbed(tmp_path_factory) -> dict[str, str]:
    return local_build(tmp_path_factory.mktemp("local"), *CHOMP)


@contextmanager
def cluster(logs: Path, **options):
    """Hosts with the scheduler and workers running; everything is removed afterwards, however it ends."""
    with Hosts(**options) as hosts:
        hosts.start_cluster(logs)
        yield hosts


def start(hosts: Hosts, out: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(hosts.tablebase("build", *args, "--out", out, "--scheduler", hosts.scheduler),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=hosts.env())


def finish(proc: subprocess.Popen, timeout: float = 600) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the build did not end in {timeout:.0f} s; what it said last:\n{err[-4000:]}")
    return proc.returncode, out, err


def one_line(err: str, *words: str) -> str:
    """The single line a stopped build prints, naming what happened and that the command resumes."""
    lines = err.strip().splitlines()
    assert len(lines) >= 1 and "Traceback" not in err, err
    last = lines[-1]
    assert last.startswith("tablebase: error: "), err
    for word in (*words, "run the same command again to resume"):
        assert word in last, (word, last)
    return last


def assert_manifest_holds_only_whole_files(table: Path) -> None:
    manifest = json.loads((table / "_manifest.json").read_text())
    hashes = file_hashes(table)
    for name, record in manifest["files"].items():
        assert hashes.get(name) == record["sha256"], name
    assert not list(table.rglob("*.tmp-*"))


# -- hosts apart ------------------------------------------------------------------------------
def test_hosts_apart_build_the_same_bytes_as_one_process(tmp_path):
    job = tmp_path / "job.toml"
    job.write_text('partition_rows = 2000\n[[table]]\ngame = "chomp"\nrows = 9\ncols = 9\n'
                   '[[table]]\ngame = "wythoff"\nmax = 256\n')
    with cluster(tmp_path) as hosts:
        devices = hosts.python("drv", f"""
import os
from distributed import Client
with Client({hosts.scheduler!r}) as c:
    print(sorted(set(c.run(lambda: os.stat("/dev/shm").st_dev).values())))
""")
        code, out, err = finish(start(hosts, tmp_path / "apart", "--job", job))
    assert code == 0, err
    assert "2 workers" in err
    assert len(json.loads(devices)) == 2  # a /dev/shm of each worker's own
    for spec in ("chomp", "--rows", "9", "--cols", "9"), ("wythoff", "--max", "256"):
        reference = local_build(tmp_path / "local", *spec, "--partition-rows", "2000")
        name = "chomp_9x9" if spec[0] == "chomp" else "wythoff_n256"
        assert file_hashes(tmp_path / "apart" / name) == reference


def test_a_plain_game_listed_on_hosts_whose_memory_is_below_the_whole_listing(tmp_path):
    """215,308 positions, which listed in one process held about 1,190 MiB: each worker host may hold 600 MiB
    (about 200 MiB of it the worker's own code), and lists, numbers and solves its share of them."""
    game = ["--game", f"{PLUGINS / 'kayles_rows.py'}:KaylesRows", "--pins", "40", "--every", "1",
            "--partition-rows", "5000"]  # the same parts on both: the memory plan sizes them by the workers' limit
    with cluster(tmp_path, memory_limit="600MiB") as hosts:
        code, out, err = finish(start(hosts, tmp_path / "apart", *game))
    assert code == 0, err
    assert "in 2 shares" in err
    assert file_hashes(tmp_path / "apart" / "kayles_rows_pins40_every1") == local_build(tmp_path / "local", *game)


# -- a link down ------------------------------------------------------------------------------
@pytest.mark.parametrize("back", [True, False], ids=["link-comes-back", "link-stays-down"])
def test_a_worker_host_cut_off_mid_level_does_not_change_the_table(tmp_path, undisturbed, back):
    with cluster(tmp_path) as hosts:
        build = start(hosts, tmp_path, *CHOMP)
        wait_for_files(tmp_path / TABLE, 40, build)
        hosts.link("w1", up=False)
        if back:
            time.sleep(3)  # shorter than the scheduler's patience: the connections carry on
            hosts.link("w1", up=True)
        code, out, err = finish(build)
    assert code == 0, err
    assert file_hashes(tmp_path / TABLE) == undisturbed


# -- memory ------------------------------------------------------------------------------------
def test_a_worker_killed_for_its_memory_stops_the_build_in_one_line_naming_the_level(tmp_path):
    game = ["greedy_take:GreedyTake", "--top", "12", "--partition-rows", "1024"]
    env = {"PYTHONPATH": str(PLUGINS)}
    with cluster(tmp_path, memory_limit="700MiB", worker_env=env, scheduler_env={
            "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"}) as hosts:
        # Level 9, above the middle level, whose notation the memory plan samples on a worker first.
        proc = subprocess.Popen(hosts.tablebase("build", *game, "--greedy", 9, "--out", tmp_path,
                                                "--scheduler", hosts.scheduler),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=hosts.env(env))
        code, out, err = finish(proc)
        assert code == 2, err
        one_line(err, "greedy_take_top12_greedy9", "level 9", "memory", "--partition-rows", "workers")
        table = tmp_path / "greedy_take_top12_greedy9"
        assert_manifest_holds_only_whole_files(table)


def test_values_a_worker_cannot_hold_are_built_from_each_hosts_disk_to_the_same_bytes(tmp_path, undisturbed):
    """The driver told that a machine may keep no values in memory (TABLEBASE_VALUES_MEMORY=0, as values larger
    than the workers' limits would be): each worker host maps its own copy from disk, filled from the store
    for the parts the other host solved, and the table is the one-process build's."""
    logs = tmp_path / "logs"
    logs.mkdir()
    with cluster(logs) as hosts:
        proc = subprocess.Popen(hosts.tablebase("build", *CHOMP, "--out", tmp_path, "--scheduler", hosts.scheduler),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=hosts.env({"TABLEBASE_VALUES_MEMORY": "0"}))
        code, out, err = finish(proc)
    assert code == 0, err
    assert "on each machine's disk" in err and "2 workers" in err
    assert file_hashes(tmp_path / TABLE) == undisturbed
    assert not (tmp_path / ".values").exists()


def test_values_that_fit_neither_the_workers_nor_a_disk_are_refused_before_anything_is_solved(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    with small_disk(tmp_path / "scratch", "1m") as scratch, cluster(logs, memory_limit="1GiB") as hosts:
        done = subprocess.run(hosts.tablebase("build", "chomp", "--rows", 16, "--cols", 16, "--out", tmp_path,
                                              "--scratch", scratch, "--scheduler", hosts.scheduler),
                              capture_output=True, text=True, env=hosts.env())
    assert done.returncode == 2, done.stderr
    assert "values of 1,146 MiB fit no worker's memory, and a machine's disk has 1 MiB free" in done.stderr
    assert "--scratch" in done.stderr and "Traceback" not in done.stderr
    assert not list(tmp_path.glob("chomp_16x16/**/*.parquet"))


# -- the scheduler killed ----------------------------------------------------------------------
def test_the_scheduler_killed_stops_the_build_in_one_line_and_the_same_command_resumes(tmp_path, undisturbed):
    with cluster(tmp_path) as hosts:
        build = start(hosts, tmp_path, *CHOMP)
        wait_for_files(tmp_path / TABLE, 40, build)
        hosts.stop("scheduler", signal.SIGKILL)
        code, out, err = finish(build)
        assert code == 2, err
        one_line(err, TABLE, "scheduler")
        assert_no_half_files(tmp_path / TABLE)
        for worker in hosts.workers:
            hosts.stop(worker)
        hosts.start_cluster(tmp_path)
        code, out, err = finish(start(hosts, tmp_path, *CHOMP))
    assert code == 0, err
    assert json.loads(out)["skipped_partitions"] > 0
    assert file_hashes(tmp_path / TABLE) == undisturbed


# -- the output's file system full ---------------------------------------------------------------
@contextmanager
def small_disk(folder: Path, size: str):
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_full_disk_stops_the_build_in_one_line_and_the_same_command_resumes_once_freed(tmp_path, undisturbed):
    # Mounted before the hosts start: each host sees the mounts there were when it began.
    logs = tmp_path / "logs"
    logs.mkdir()
    with small_disk(tmp_path / "out", "3m") as out, cluster(logs) as hosts:
        code, _, err = finish(start(hosts, out, *CHOMP))
        assert code == 2, err
        one_line(err, str(out), "full")
        assert_manifest_holds_only_whole_files(out / TABLE)
        assert_no_half_files(out / TABLE)
        subprocess.run(["mount", "-o", "remount,size=64m", str(out)], check=True)
        code, res, err = finish(start(hosts, out, *CHOMP))
        assert code == 0, err
        assert json.loads(res)["skipped_partitions"] > 0
        assert file_hashes(out / TABLE) == undisturbed
