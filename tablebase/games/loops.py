"""Compiled loops around a game's compiled move generator, one per game, cached on disk; a batch's moves.

Numba cannot cache a function that receives another compiled function as an
argument, so every process would compile the loop again. Instead each loop is
written out once per game as a small module in a cache folder, naming the
generator directly; numba keeps its machine code next to it. The module's name
holds a digest of the game's own source and of this module, so a changed rule
never meets an old loop (``compiled_loop``). The loops' sources are templates:
``CHILDREN`` here (every move of a batch, ``children_of``, which lookups use
too), the solvers' in ``solve/kernels.py``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from functools import lru_cache
from typing import Any, Callable

import tablebase.jit as jit
from tablebase.errors import TablebaseError
from tablebase.games.capabilities import Children
from tablebase.games.forms import ImpartialForm, ScoredForm
from tablebase.games.registry import source_digest
from tablebase.jit import compile_all, resolved
from tablebase.lazy import np

INTERPRETED = 64  # positions whose moves are listed in Python where nothing is compiled yet

CHILDREN = '''
import numpy as np
import numba

from {moves_module} import {moves_name} as moves


@numba.njit(cache={cache})
def loop(keys, args, max_moves):
    child = np.empty(max_moves + 1, dtype=np.int64)
    codes = np.empty(max_moves + 1, dtype=np.int64)
    offsets = np.zeros(keys.shape[0] + 1, dtype=np.int64)
    out_keys = np.empty(max(16, keys.shape[0] * 4), dtype=np.int64)
    out_moves = np.empty_like(out_keys)
    for t in range(keys.shape[0]):
        n = moves(keys[t], args, child, codes)
        end = offsets[t] + n
        if end > out_keys.shape[0]:
            size = max(2 * out_keys.shape[0], end)
            out_keys = np.concatenate((out_keys, np.empty(size - out_keys.shape[0], dtype=np.int64)))
            out_moves = np.concatenate((out_moves, np.empty(size - out_moves.shape[0], dtype=np.int64)))
        out_keys[offsets[t]:end] = child[:n]
        out_moves[offsets[t]:end] = codes[:n]
        offsets[t + 1] = end
    return offsets, out_keys[:offsets[-1]].copy(), out_moves[:offsets[-1]].copy()
'''

@lru_cache(maxsize=64)  # a few loops per game a process meets
def compiled_loop(template: str, kernel: Any, fresh: bool = False) -> Callable:
    """The ``loop`` of a template around a game's compiled move generator.

    ``fresh`` loops around a game's own generator are compiled in memory and never cached (verify and
    check-game use them); loops around the engine's own generators (the built-in games', the listing's)
    come from the cache either way, since the engine's source keys them."""
    compile_all()
    kernel = resolved(kernel)
    function = kernel.py_func
    if getattr(sys.modules.get(function.__module__), function.__name__, None) is not kernel:
        raise TablebaseError(f"the compiled move generator {function.__name__} must be a function at the top of "
                             f"its module ({function.__module__}), where a compiled loop can import it")
    fresh = fresh and not function.__module__.startswith("tablebase.")
    digest = hashlib.sha256(
        (template + source_digest(function.__module__) + source_digest(__name__)).encode()
    ).hexdigest()[:16]
    fields = dict(moves_module=function.__module__, moves_name=function.__name__)
    name = f"tablebase_loop_{function.__module__.replace('.', '_')}_{function.__name__}_{digest}"
    try:
        if fresh:
            raise OSError("compiled in memory")
        path = jit.cache_folder() / "kernels" / f"{name}.py"
        if not path.exists():
            jit.write_cached(path, template.format(cache=True, **fields))
        spec = importlib.util.spec_from_file_location(name, path)
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[name] = loaded  # numba's cache finds the module again by name
        spec.loader.exec_module(loaded)
        loop = loaded.loop
    except OSError:
        # Fresh, or no writable cache folder: compile in memory, once per process.
        namespace: dict[str, Any] = {}
        exec(compile(template.format(cache=False, **fields), name, "exec"), namespace)
        loop = namespace["loop"]
    return loop


def children_of(game: ImpartialForm | ScoredForm, keys: np.ndarray, fresh: bool = False) -> Children:
    """Every move of a batch of positions: from the game's compiled generator if it has one.

    A few positions (a lookup's) in a process that compiles nothing (one that only reads) are played by
    the generator as Python: numba's start-up would cost far more than they do.
    """
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    compiled = game.compiled_moves
    if compiled is None:
        return game.children(keys) if len(keys) else Children(np.zeros(1, np.int64), np.zeros(0, np.int64),
                                                              np.zeros(0, np.int64))
    if not jit.compiled() and len(keys) <= INTERPRETED:
        return _interpreted(compiled.kernel, keys, compiled.make_args(), game.max_moves)
    offsets, child, codes = compiled_loop(CHILDREN, compiled.kernel, fresh)(keys, compiled.make_args(), game.max_moves)
    return Children(offsets, child, codes)


def _interpreted(kernel: Any, keys: np.ndarray, args: tuple, max_moves: int) -> Children:
    """``CHILDREN``'s loop in Python."""
    child = np.empty(max_moves + 1, dtype=np.int64)
    codes = np.empty(max_moves + 1, dtype=np.int64)
    offsets, out_keys, out_moves = [0], [], []
    for key in keys.tolist():
        n = kernel(key, args, child, codes)
        out_keys += child[:n].tolist()
        out_moves += codes[:n].tolist()
        offsets.append(offsets[-1] + n)
    return Children(np.array(offsets, dtype=np.int64), np.array(out_keys, dtype=np.int64),
                    np.array(out_moves, dtype=np.int64))


__all__ = ["CHILDREN", "children_of", "compiled_loop"]
