"""Values mapped from disk are allowed for in Dask's memory limits while a build maps them
(``build/cluster/mapped_memory.py``).

A real local cluster of worker processes, each with a nanny: the limits Dask
pauses a worker at (the worker's) and restarts it at (its nanny's) are read
back from the processes themselves.
"""

from __future__ import annotations

import math

import dask
import pytest
from distributed import Client, LocalCluster

from tablebase.build.cluster.mapped_memory import mapped_values_allowed

MIB = 2**20
LIMIT = 500 * MIB


def limits(client: Client, nanny: bool = False) -> list[int]:
    def limit(dask_worker):
        return dask_worker.memory_manager.memory_limit

    return sorted(client.run(limit, nanny=nanny).values())


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=LIMIT, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            yield client


def raised(*mapped: int, nanny: bool = False) -> list[int]:
    """Both limits once the values are allowed for: the worker's pause (80% of its limit by default) and the
    nanny's restart (95%) each higher by the values' bytes, every page of which may be resident."""
    fraction = dask.config.get("distributed.worker.memory.terminate" if nanny else "distributed.worker.memory.pause")
    return [LIMIT + sum(math.ceil(n / fraction) for n in mapped)] * 2


def test_every_worker_and_nanny_may_hold_the_mapped_values_while_they_are_mapped_then_no_more(client):
    assert limits(client) == limits(client, nanny=True) == [LIMIT, LIMIT]
    with mapped_values_allowed(client, "run-a", 100 * MIB):
        assert limits(client) == raised(100 * MIB) and limits(client, nanny=True) == raised(100 * MIB, nanny=True)
        pause = dask.config.get("distributed.worker.memory.pause")
        assert all(pause * limit >= pause * LIMIT + 100 * MIB for limit in limits(client))
        with mapped_values_allowed(client, "run-b", 10 * MIB):  # two tables side by side
            assert limits(client) == raised(100 * MIB, 10 * MIB)
        assert limits(client) == raised(100 * MIB)
    assert limits(client) == limits(client, nanny=True) == [LIMIT, LIMIT]


def test_a_worker_restarted_while_the_values_are_mapped_is_allowed_for_them_too(client):
    with mapped_values_allowed(client, "run-c", 64 * MIB):
        client.restart_workers(sorted(client.scheduler_info()["workers"])[:1])
        assert limits(client) == raised(64 * MIB) and limits(client, nanny=True) == raised(64 * MIB, nanny=True)
    assert limits(client) == limits(client, nanny=True) == [LIMIT, LIMIT]


def test_values_in_memory_change_no_limit(client):
    with mapped_values_allowed(client, "run-d", 0):
        assert limits(client) == [LIMIT, LIMIT]


def test_the_limits_are_set_back_when_the_build_fails(client):
    with pytest.raises(RuntimeError), mapped_values_allowed(client, "run-e", 32 * MIB):
        raise RuntimeError("a task failed")
    assert limits(client) == limits(client, nanny=True) == [LIMIT, LIMIT]


def test_a_build_keeps_the_allowance_until_its_values_are_let_go_of(client, tmp_path, monkeypatch):
    """Between the last level solved and the values let go of, the workers still map them: a nanny set back
    to its limit then restarted every worker of a 600 MiB cluster building Chomp 16x16 at once."""
    from tablebase.build import build_tables
    from tablebase.build.driver import TableBuild
    from tablebase.build.jobs import spec_for

    seen, release_values = [], TableBuild.release_values

    def watched(build):
        seen.append((limits(client), limits(client, nanny=True)))
        release_values(build)

    monkeypatch.setattr(TableBuild, "release_values", watched)
    monkeypatch.setenv("TABLEBASE_VALUES_MEMORY", "0")  # the values on disk, as when no worker can hold them
    list(build_tables([spec_for("chomp", dict(rows=8, cols=8))], tmp_path, scheduler=client.scheduler.address,
                      quiet=True))
    (workers, nannies), = seen
    assert min(workers) > LIMIT and min(nannies) > LIMIT
    assert limits(client) == limits(client, nanny=True) == [LIMIT, LIMIT]
