"""A build's workers keep the memory their tasks free, so that the next task's arrays do not
fault their pages in from the kernel again (build/cluster/allocator.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tablebase.build import build_table, dask_client, spec_for

pytestmark = pytest.mark.slow  # other processes: see conftest.py

# A mebibyte array made and freed 200 times: 256 pages each time if the heap hands it back.
FAULTS = """
import json, resource, sys
import numpy as np
from tablebase.build.cluster import allocator
kept = allocator.keep_freed_memory() if sys.argv[1] == "kept" else None
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(200):
    np.ones(2**17)
print(json.dumps({"kept": kept, "faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before}))
"""


def _faults() -> int:
    import resource

    import numpy as np
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(200):
        np.ones(2**17)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def _run(mode: str) -> dict:
    env = {"MALLOC_TRIM_THRESHOLD_": "65536", "PATH": "/usr/bin:/bin"}  # as Dask starts its workers
    done = subprocess.run([sys.executable, "-c", FAULTS, mode], capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout)


def test_freed_arrays_are_reused_without_faulting_their_pages_again():
    plain, kept = _run("plain"), _run("kept")
    assert kept["kept"]  # glibc took the settings (the project's machines run it)
    assert plain["faults"] > 200 * 256 * 0.9  # the settings Dask gives its workers: every array faulted anew
    assert kept["faults"] < plain["faults"] / 10


def test_a_build_s_workers_keep_freed_memory(tmp_path):
    with dask_client(workers=2) as client:
        build_table(client, tmp_path, spec_for("chomp", {"rows": 4, "cols": 4}))
        faults = list(client.run(_faults).values())
    assert len(faults) == 2 and all(f < 200 * 256 / 10 for f in faults), faults


def test_a_build_sets_its_workers_to_keep_freed_memory_before_it_lists_a_game(tmp_path):
    """The listing of a plain game allocates and frees as much as its solve: the workers keep what they free
    from the build's start, not from their first solving task."""
    from pathlib import Path

    from tablebase.build.driver import TableBuild
    from tablebase.store.location import located

    kayles = Path(__file__).parent / "plugins" / "kayles_rows.py"
    with dask_client(workers=2) as client:
        if not all(client.run(_trims_everything).values()):
            pytest.skip("the workers were not started as Dask starts its workers (MALLOC_TRIM_THRESHOLD_)")
        fresh = list(client.run(_faults).values())
        build = TableBuild(client, located(tmp_path), spec_for(f"{kayles}:KaylesRows", {"pins": 8, "every": 1}), 1.0)
        build.prepare(None)  # listed and planned, nothing solved yet
        assert build.manifest.listing.get("files")
        listed = list(client.run(_faults).values())
        build.close()
    assert all(f > 200 * 256 * 0.9 for f in fresh), fresh
    assert all(f < 200 * 256 / 10 for f in listed), listed


def _trims_everything() -> bool:
    import os

    return os.environ.get("MALLOC_TRIM_THRESHOLD_") == "65536"


def _arrow_kept(limit: int) -> int:
    """The bytes of Arrow's freed memory a worker of this memory limit keeps after a task (its resident
    memory before and after it hands back what Arrow keeps)."""
    import numpy as np
    import psutil
    import pyarrow as pa
    from distributed import get_worker

    from tablebase.build.cluster import allocator

    get_worker().memory_manager.memory_limit = limit
    buffers = [pa.allocate_buffer(2**21) for _ in range(64)]  # 128 MiB of Arrow's, faulted in
    for buffer in buffers:
        np.frombuffer(buffer, dtype=np.uint8)[:] = 1
    del buffers, buffer
    held = psutil.Process().memory_info().rss
    allocator.hand_back_arrow_memory()
    kept = held - psutil.Process().memory_info().rss
    pa.default_memory_pool().release_unused()
    return 2**27 - kept  # what was not handed back


def test_a_worker_keeps_arrow_s_freed_memory_while_it_holds_little_of_its_limit():
    with dask_client(workers=1) as client:
        roomy = client.submit(_arrow_kept, 64 * 2**30, pure=False).result()
        tight = client.submit(_arrow_kept, 2**28, pure=False).result()  # 256 MiB: it holds more than a tenth
    assert roomy > 2**27 * 0.9, roomy
    assert tight < 2**27 * 0.5, tight
