"""The local cluster's worker processes are forked from the fork server, which has the build's
modules imported, and see the environment of the process that starts the cluster."""

from __future__ import annotations

import gc
import json
import multiprocessing.forkserver
import os
import sys
import uuid
from math import comb

import pytest

from tablebase.build import dask_client
from tablebase.build.cluster import fork_server
from tablebase.build.jobs import SMALL_JOB
from tablebase.cli import main

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py


def _facts() -> dict:
    return {"parent": os.getppid(), "imported": "tablebase.build.tasks" in sys.modules,
            "marker": os.environ.get("TABLEBASE_TEST_MARKER"), "frozen": gc.get_freeze_count(),
            "collecting": gc.isenabled()}


def test_workers_are_forked_with_the_build_imported_and_this_environment(monkeypatch):
    fork_server.start()
    marker = uuid.uuid4().hex  # set after the server started: the server cannot have it
    monkeypatch.setenv("TABLEBASE_TEST_MARKER", marker)
    with dask_client(workers=2) as client:
        facts = list(client.run(_facts).values())
    assert len(facts) == 2
    for fact in facts:
        assert fact["parent"] != os.getpid()  # the server's child, not this process's
        assert fact["imported"] and fact["marker"] == marker
        # the server's imports are kept out of the workers' collections, which still run
        assert fact["frozen"] > 50_000 and fact["collecting"]


def _server_pid() -> int | None:
    return multiprocessing.forkserver._forkserver._forkserver_pid


def test_a_stopped_server_is_gone_at_once_and_starts_again_when_a_cluster_needs_it():
    fork_server.start()
    first = _server_pid()
    fork_server.stop()  # while it may still be importing: it must not wait for that
    assert _server_pid() is None
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)  # ended and reaped
    fork_server.stop()  # a second stop has nothing to do
    with dask_client(workers=1) as client:
        facts = list(client.run(_facts).values())
    assert _server_pid() not in (None, first)
    assert facts[0]["parent"] != os.getpid() and facts[0]["imported"]


def test_a_small_build_stops_the_server_and_runs_its_workers_in_threads(tmp_path, capsys):
    fork_server.start()
    started = _server_pid()
    assert main(["build", "chomp", "--rows", "3", "--cols", "3", "--out", str(tmp_path), "--quiet"]) == 0
    assert _server_pid() is None
    with pytest.raises(ProcessLookupError):
        os.kill(started, 0)
    assert json.loads(capsys.readouterr().out)["positions"] == comb(6, 3) - 1  # diagrams in 3x3 but the empty one


def test_a_large_build_keeps_the_server_for_its_worker_processes(tmp_path, capsys):
    fork_server.start()
    started = _server_pid()
    assert comb(24, 12) > SMALL_JOB
    # 2,704,155 positions: more than a small job, so its workers are the server's children
    assert main(["build", "chomp", "--rows", "12", "--cols", "12", "--out", str(tmp_path), "--quiet"]) == 0
    assert _server_pid() == started
    assert json.loads(capsys.readouterr().out)["positions"] == comb(24, 12) - 1
