"""Shared fixtures: one real Dask cluster (scheduler and worker processes over TCP on loopback).

The fast tier (``pytest -m "not slow"``) leaves out whatever needs that
cluster, other processes (the command run as a user runs it, simulated
hosts, servers, a browser) or long searches: a test is slow if it uses the
cluster (marked here) or its module says so (``pytestmark``).

Tests that need what only the full suite's machine has (root, a browser, a
C compiler) fail, saying what is missing, rather than skip: ``helpers.require``.
"""

from __future__ import annotations

import itertools
import logging
import re
from dataclasses import dataclass
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
            if params.get("misere"):  # misère figures do not change a table's name: one apart from the same without
                name += "_misere"
            if any(built_name == name for _, built_name in cache.values()):
                name = f"{name}_p{partition_rows or 0}"
            spec = spec_for(game, params, name)
            list(build_tables([spec], root, scheduler=scheduler, partition_rows=partition_rows, quiet=True))
            cache[key] = (root, spec.name)
        return cache[key]

    return build


@pytest.fixture(scope="session")
def s3_server():
    """A real S3-protocol server on loopback for the session (``tests/object_store.py``), with a bucket."""
    from object_store import S3Server

    server = S3Server()
    yield server
    server.stop()


@dataclass
class Store:
    """The session's S3 server, and a prefix of its bucket that no other test uses, as a URL and as keys."""

    server: object
    url: str
    prefix: str


_prefixes = itertools.count()


@pytest.fixture
def s3(s3_server, monkeypatch, request) -> Store:
    """The S3 server named by the standard AWS variables for this test (no AWS file of the machine read), and a
    prefix of its bucket of this test's own."""
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    for name, value in s3_server.env().items():
        monkeypatch.setenv(name, value)
    s3_server.start()
    prefix = f"{re.sub(r'[^a-z0-9]+', '-', request.node.name.lower()).strip('-')[:50]}-{next(_prefixes)}"
    return Store(s3_server, f"s3://tables/{prefix}", prefix)


@dataclass
class Place:
    """Where a test's tablebase lies (a folder's path or an s3:// URL), and what is really there: every file
    under it, by name, with its bytes, read with the standard library or listed with botocore (none of the
    store's code)."""

    url: str
    there: object


@pytest.fixture(params=["folder", pytest.param("bucket", marks=pytest.mark.slow)])
def place(request, tmp_path) -> Place:
    """A tablebase's place on each backend: a folder, and a prefix of the S3 server's bucket."""
    if request.param == "folder":
        root = tmp_path / "tb"

        def there() -> dict[str, bytes]:
            return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

        return Place(str(root), there)
    store = request.getfixturevalue("s3")

    def there() -> dict[str, bytes]:
        return {k[len(store.prefix) + 1:]: v for k, v in store.server.keys(store.prefix + "/").items()}

    return Place(store.url, there)


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
