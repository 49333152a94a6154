"""A local build's cluster listens on loopback only, and shows its dashboard only when asked to.

Each build runs in a process of its own (``cluster_listeners.py``), so that
what listens there is the build's cluster alone.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from math import comb
from pathlib import Path

import pytest
from helpers import assert_clean_error
from helpers import tablebase as run

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py

SCRIPT = Path(__file__).with_name("cluster_listeners.py")
NIM_2x5 = comb(5 + 2, 2)  # positions of two heaps of at most 5: multisets of 2 of the 6 sizes


def built(tmp_path: Path, *flags: str) -> dict:
    result = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path), *flags],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def assert_loopback_only(report: dict) -> None:
    assert report["positions"] == NIM_2x5  # a real build ran on the cluster
    assert report["listening"] == ["127.0.0.1"], report["listening"]  # what the operating system says
    assert report["scheduler_http"] == report["workers_http"] == ["127.0.0.1"]  # what Dask says it bound
    for address in [report["scheduler"], *report["workers"]]:
        assert address.startswith(("tcp://127.0.0.1:", "inproc://")), address
    assert report["dashboard"].startswith("http://127.0.0.1:")


@pytest.mark.parametrize("flags", [(), ("--small",)], ids=["processes", "threads"])
def test_a_local_build_listens_on_loopback_and_serves_no_dashboard(tmp_path, flags):
    report = built(tmp_path, *flags)
    assert_loopback_only(report)
    # Dask's HTTP servers are there, on loopback, with no page on them: no status, no counts, no health.
    assert set(report["pages"].values()) == {404}, report["pages"]


@pytest.mark.parametrize("flags", [(), ("--small",)], ids=["processes", "threads"])
def test_the_dashboard_when_asked_for_is_on_loopback(tmp_path, flags):
    report = built(tmp_path, "--dashboard", *flags)
    assert_loopback_only(report)
    assert set(report["pages"].values()) == {200}, report["pages"]


def test_build_dashboard_says_where_it_is_and_needs_a_local_cluster(tmp_path):
    result = run("build", "nim", "--heaps", "2", "--max-heap", "5", "--out", tmp_path / "tb", "--dashboard")
    assert result.returncode == 0, result.stderr
    said = r"^Dask dashboard at http://127\.0\.0\.1:\d+/status \(this machine only\)$"
    assert re.search(said, result.stderr, re.MULTILINE)
    assert json.loads(result.stdout)["positions"] == NIM_2x5
    quiet = run("build", "nim", "--heaps", "2", "--max-heap", "4", "--out", tmp_path / "tb", "--quiet")
    assert quiet.returncode == 0 and "dashboard" not in quiet.stderr
    refused = run("build", "nim", "--heaps", "2", "--max-heap", "4", "--out", tmp_path / "tb", "--dashboard",
                  "--scheduler", "tcp://127.0.0.1:1")
    assert_clean_error(refused, "--dashboard", "scheduler")
