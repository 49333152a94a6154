"""Heavy imports with the garbage collector kept out of them (tablebase/build/cluster/imports.py)."""

from __future__ import annotations

import gc

from tablebase.build.cluster.imports import long_lived


def test_the_collector_is_off_in_the_block_and_on_after_it_with_what_the_block_made_frozen():
    assert gc.isenabled()
    before = gc.get_freeze_count()
    try:
        with long_lived():
            assert not gc.isenabled()
            made = [[] for _ in range(1000)]  # lists: objects the collector tracks
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + len(made)
    finally:
        gc.unfreeze()


def test_a_collector_turned_off_before_the_block_stays_off_after_it():
    gc.disable()
    try:
        with long_lived():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


def test_the_command_line_speaks_before_the_heavy_imports():
    """`tablebase build` says what it is doing before it imports the game and the solvers, which
    take seconds on a loaded machine: the command-line package itself imports none of them."""
    import subprocess
    import sys

    heavy = ("numpy", "numba", "pyarrow", "duckdb", "dask", "distributed")
    code = f"import sys, tablebase.cli; print(' '.join(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []
