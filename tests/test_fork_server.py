"""The local cluster's worker processes are forked from the fork server, which has the build's
modules imported, and see the environment of the process that starts the cluster."""

from __future__ import annotations

import os
import sys
import uuid

from tablebase import fork_server
from tablebase.build import dask_client


def _facts() -> dict:
    return {"parent": os.getppid(), "imported": "tablebase.build.tasks" in sys.modules,
            "marker": os.environ.get("TABLEBASE_TEST_MARKER")}


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
