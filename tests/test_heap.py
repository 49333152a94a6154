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
