"""The compiled loop that solves a dense game's positions, one per game, cached on disk.

The loop calls the game's own compiled move generator for each position. Numba
cannot cache a function that receives another compiled function as an
argument, so every process would compile the loop again (about a second per
worker per build). Instead the loop is written out once per game as a small
module in a cache folder, naming the generator directly; numba keeps its
machine code next to it, and later processes load it. The module's name holds
a hash of the games' and solvers' sources, so any change starts afresh.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

LOOP = '''
import numpy as np
import numba

from {settle_module} import _settle
from {moves_module} import {moves_name} as moves


@numba.njit(cache={cache})
def solve_dense(keys, args, max_moves, grundy, remoteness, misere, out_g, out_r, out_best, out_mis):
    child = np.empty(max_moves + 1, dtype=np.int64)
    codes = np.empty(max_moves + 1, dtype=np.int64)
    seen = np.zeros(max_moves + 2, dtype=np.bool_)
    use_misere = misere.shape[0] > 0
    for t in range(keys.shape[0]):
        n = moves(keys[t], args, child, codes)
        out_g[t], out_r[t], out_best[t], out_mis[t] = _settle(
            n, child, codes, grundy, remoteness, misere, seen, use_misere
        )
'''

_loaded: dict[Any, Callable] = {}


@lru_cache(maxsize=None)
def _sources_digest() -> str:
    """A hash of the games' and solvers' sources: the loop's machine code depends on them."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted([*package.glob("games/*.py"), *package.glob("solve/*.py")]):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _cache_folder() -> Path:
    return Path(os.environ.get("TABLEBASE_CACHE", Path.home() / ".cache" / "tablebase")) / "kernels"


def dense_solver(moves_kernel: Any, settle_module: str) -> Callable:
    """``solve_dense(keys, args, max_moves, grundy, remoteness, misere, out_g, out_r, out_best, out_mis)`` for a game."""
    if moves_kernel in _loaded:
        return _loaded[moves_kernel]
    function = moves_kernel.py_func
    digest = _sources_digest()
    fields = dict(settle_module=settle_module, moves_module=function.__module__, moves_name=function.__name__)
    name = f"tablebase_kernel_{function.__module__.replace('.', '_')}_{function.__name__}_{digest}"
    try:
        folder = _cache_folder()
        path = folder / f"{name}.py"
        if not path.exists():
            folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_text(LOOP.format(cache=True, **fields))
            os.replace(tmp, path)
        spec = importlib.util.spec_from_file_location(name, path)
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[name] = loaded  # numba's cache finds the module again by name
        spec.loader.exec_module(loaded)
        solver = loaded.solve_dense
    except OSError:
        # No writable cache folder: compile in memory, once per process.
        namespace: dict[str, Any] = {}
        exec(compile(LOOP.format(cache=False, **fields), name, "exec"), namespace)
        solver = namespace["solve_dense"]
    _loaded[moves_kernel] = solver
    return solver


__all__ = ["dense_solver"]
