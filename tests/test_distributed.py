"""A build through a real `dask scheduler` and two `dask worker` processes on loopback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from distributed import Client
from helpers import file_hashes, tablebase

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py

DASK = str(Path(sys.executable).with_name("dask"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_workers(address: str, n: int, timeout: float = 60) -> None:
    """Until the scheduler at address answers and has n workers."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with Client(address, timeout="5s") as client:
                client.wait_for_workers(n, timeout=max(1, deadline - time.monotonic()))
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


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
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            p.wait(timeout=30)


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
