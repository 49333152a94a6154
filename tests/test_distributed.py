"""A build through a real `dask scheduler` and two `dask worker` processes on loopback."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from distributed import Client
from helpers import assert_clean_error, file_hashes, tablebase

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py

DASK = str(Path(sys.executable).with_name("dask"))
GARBLED_HANDSHAKE = Path(__file__).parent / "schedulers" / "garbled_handshake.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def retried(attempt: Callable[[], None], timeout: float, pause: float) -> None:
    """``attempt()`` again, ``pause`` seconds apart, until it raises no OSError or ``timeout`` seconds passed."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return attempt()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(pause)


def wait_for_workers(address: str, n: int, timeout: float = 60) -> None:
    """Until the scheduler at address answers and has n workers."""
    deadline = time.monotonic() + timeout

    def attempt() -> None:
        with Client(address, timeout="5s") as client:
            client.wait_for_workers(n, timeout=max(1, deadline - time.monotonic()))

    retried(attempt, timeout, 0.5)


def wait_for_port(address: str, timeout: float = 60) -> None:
    """Until something accepts a TCP connection at address (without speaking Dask to it)."""
    host, port = address.removeprefix("tcp://").rsplit(":", 1)
    retried(lambda: socket.create_connection((host, int(port)), timeout=1).close(), timeout, 0.2)


def stop(procs: list[subprocess.Popen]) -> None:
    for p in reversed(procs):
        p.terminate()
    for p in procs:
        p.wait(timeout=30)


@pytest.fixture
def cluster():
    address = f"tcp://127.0.0.1:{free_port()}"
    port = address.rsplit(":", 1)[1]
    procs = [
        subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ]
    try:
        for _ in range(2):
            procs.append(
                subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--nworkers", "1", "--no-dashboard"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )
        wait_for_workers(address, 2)
        yield address
    finally:
        stop(procs)


def test_a_real_cluster_builds_the_same_files_as_a_local_cluster(tmp_path, cluster):
    jobs = tmp_path / "job.toml"
    jobs.write_text('partition_rows = 40\n[[table]]\ngame = "chomp"\nrows = 4\ncols = 4\n'
                    '[[table]]\ngame = "wythoff"\nmax = 30\n')
    result = tablebase("build", "--job", jobs, "--out", tmp_path / "remote", "--scheduler", cluster)
    assert result.returncode == 0, result.stderr
    summaries = [json.loads(line) for line in result.stdout.splitlines()]
    assert [s["table"] for s in summaries] == ["chomp_4x4", "wythoff_n30"]
    assert "2 workers" in result.stderr
    # The same job on the command's own local cluster, in a folder of its own: each table under the
    # same name, whatever other tests built before.
    local = tablebase("build", "--job", jobs, "--out", tmp_path / "local", "--workers", "2", "--quiet")
    assert local.returncode == 0, local.stderr
    for table in ("chomp_4x4", "wythoff_n30"):
        assert file_hashes(tmp_path / "local" / table) == file_hashes(tmp_path / "remote" / table)


@pytest.fixture
def garbling_scheduler():
    """start(garbled) -> the address of a real scheduler, with a worker, whose first ``garbled`` replies to a
    client's handshake hold two messages where Dask's client takes one (every reply if ``garbled`` is -1)."""
    procs = []

    def start(garbled: int) -> str:
        address = f"tcp://127.0.0.1:{free_port()}"
        procs.append(subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1], "--no-dashboard",
             "--preload", str(GARBLED_HANDSHAKE)],
            env={**os.environ, "GARBLED_HANDSHAKES": str(garbled)},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        procs.append(subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-dashboard"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for_port(address)
        return address

    try:
        yield start
    finally:
        stop(procs)


def test_a_handshake_that_keeps_failing_is_said_in_one_line(tmp_path, garbling_scheduler):
    address = garbling_scheduler(-1)
    result = tablebase("build", "nim", "--heaps", 2, "--max-heap", 4, "--out", tmp_path / "db",
                       "--scheduler", address, "--quiet")
    assert_clean_error(result, f"cannot reach the Dask scheduler at {address}", "handshake failed")
    assert not [path for path in (tmp_path / "db").rglob("*") if path.is_file()]


def test_a_handshake_that_fails_twice_is_tried_again_and_builds(tmp_path, garbling_scheduler):
    result = tablebase("build", "nim", "--heaps", 2, "--max-heap", 4, "--out", tmp_path / "db",
                       "--scheduler", garbling_scheduler(2), "--quiet")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["positions"] == 6 * 5 // 2  # two heaps of 0 to 4 in any order


def test_an_address_where_no_scheduler_listens_is_said_in_one_line(tmp_path):
    address = f"tcp://127.0.0.1:{free_port()}"
    result = tablebase("build", "nim", "--heaps", 2, "--max-heap", 4, "--out", tmp_path / "db",
                       "--scheduler", address, "--quiet")
    assert_clean_error(result, f"cannot reach the Dask scheduler at {address}")
    assert not [path for path in (tmp_path / "db").rglob("*") if path.is_file()]


def test_the_compose_files_store_and_the_tests_server_refuse_a_write_over_another_version():
    """The compose file's store is moto's published image, and the tests' server moto from PyPI, each of a
    version that refuses a PUT whose If-Match is not the object's ETag: 5.1.5 and later, by moto's changelog
    (5.1.4 wrote over any version, and a commit or a lock renewal over another build's went through)."""
    import re

    import yaml

    top = Path(__file__).resolve().parent.parent
    image = yaml.safe_load((top / "docker-compose.yml").read_text())["services"]["store"]["image"]
    name, _, tag = image.partition(":")
    assert name == "motoserver/moto" and re.fullmatch(r"\d+\.\d+\.\d+", tag), image
    assert tuple(map(int, tag.split("."))) >= (5, 1, 5), image
    pin = re.search(r'"moto\[server\]>=([\d.]+)"', (top / "pyproject.toml").read_text()).group(1)
    assert tuple(map(int, pin.split("."))) >= (5, 1, 5), pin


def test_the_compose_files_commands_build_on_its_object_store(tmp_path, s3_server):
    """docker-compose.yml's services as processes on loopback (images cannot be pulled here): its store is the
    tests' S3 server, and each other service runs its own command with its own environment, names of hosts
    made addresses. The build writes to the store only (no volume is shared), the tables of a folder's build
    of the same job, byte for byte."""
    import os
    import re
    import shlex

    import yaml
    from test_object_store_builds import folder_files, plain_files

    compose = yaml.safe_load((Path(__file__).resolve().parent.parent / "docker-compose.yml").read_text())
    services = compose["services"]
    assert "volumes" not in compose and not any("volumes" in s for s in services.values())
    address = f"tcp://127.0.0.1:{free_port()}"
    prefix = f"compose-{os.getpid()}"

    def local(command: str | list[str]) -> list[str]:
        words = shlex.split(command) if isinstance(command, str) else list(command)
        return [w.replace("tcp://scheduler:8786", address).replace("0.0.0.0", "127.0.0.1")
                .replace("8786", address.rsplit(":", 1)[1]).replace("s3://tables/quick", f"s3://tables/{prefix}")
                for w in words]

    def env_of(service: str) -> dict[str, str]:
        given = services[service]["environment"]
        assert given["AWS_ENDPOINT_URL"] == "http://store:5000"
        return {**os.environ, **s3_server.env()}  # its store's address and keys: the tests' server's

    procs = []
    try:
        made = subprocess.run(local(services["bucket"]["command"]), env=env_of("bucket"), capture_output=True,
                              text=True, timeout=120)
        assert made.returncode == 0, made.stderr
        procs.append(subprocess.Popen(local(services["scheduler"]["command"]), env=env_of("scheduler"),
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for _ in range(services["worker"]["deploy"]["replicas"]):
            procs.append(subprocess.Popen(local(services["worker"]["command"]), env=env_of("worker"),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for_workers(address, 2)
        build = local(services["build"]["command"])
        assert build[:2] == ["tablebase", "build"] and any(w.startswith("s3://") for w in build)
        done = subprocess.run([sys.executable, "-m", "tablebase", *build[1:]], env=env_of("build"),
                              cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr
    finally:
        stop(procs)
    job = re.search(r"--job (\S+)", services["build"]["command"]).group(1)
    here = tablebase("build", "--job", Path(__file__).resolve().parent.parent / job, "--out", tmp_path / "local",
                     "--quiet")
    assert here.returncode == 0, here.stderr
    tables = [json.loads(line)["table"] for line in here.stdout.splitlines()]
    assert len(tables) == 8
    for table in tables:
        assert plain_files(s3_server, f"{prefix}/{table}") == folder_files(tmp_path / "local" / table), table
