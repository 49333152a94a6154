"""Shared fixtures: one real Dask cluster (scheduler and worker processes over TCP on loopback).

The fast tier (``pytest -m "not slow"``) leaves out whatever needs that
cluster, other processes (the command run as a user runs it, simulated
hosts, servers, a browser) or long searches: a test is slow if it uses the
cluster (marked here) or its module says so (``pytestmark``).

Tests that need what only the full suite's machine has (root, a browser, a
C compiler) fail, saying what is missing, rather than skip: ``helpers.require``.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from distributed import LocalCluster

import tablebase
from tablebase.build import build_tables
from tablebase.build.jobs import spec_for


@pytest.fixture(scope="session")
def scheduler() -> str:
    """The address of a LocalCluster of two worker processes, shared by the whole session."""
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,  # no pages: nothing listens beyond loopback
        silence_logs=logging.ERROR,
    ) as cluster:
        yield cluster.scheduler_address


@pytest.fixture(scope="session")
def built(tmp_path_factory, scheduler):
    """build(game, **params) -> (root, table): each distinct table is built once per session."""
    cache: dict = {}
    root = tmp_path_factory.mktemp("tables")

    def build(game: str, partition_rows: int | None = None, **params) -> tuple[Path, str]:
        key = (game, partition_rows, tuple(sorted(params.items())))
        if key not in cache:
            # The same table with another partition size is another build: once its name is taken,
            # under a name of its own.
            name = spec_for(game, params).name
            if any(built_name == name for _, built_name in cache.values()):
                name = f"{name}_p{partition_rows or 0}"
            spec = spec_for(game, params, name)
            list(build_tables([spec], root, scheduler=scheduler, partition_rows=partition_rows, quiet=True))
            cache[key] = (root, spec.name)
        return cache[key]

    return build


def rows_of(root: Path, table: str) -> list[dict]:
    with tablebase.open(root) as tb:
        return tb.sql(f"SELECT * FROM {table} ORDER BY key").to_pylist()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that uses the session's cluster, directly or through a fixture, is slow; so are the
    property tests of the CGT package, each of which plays hundreds of generated games (the fast tier
    keeps that package's tests by example)."""
    for item in items:
        function = getattr(item, "function", None)
        generated = getattr(function, "is_hypothesis_test", False) and "/tests/cgt/" in str(item.path)
        if generated or "scheduler" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
