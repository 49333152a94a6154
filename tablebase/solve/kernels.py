"""The compiled loops the solvers run around a game's compiled move generator, as templates.

Each template is the source of a small module naming the game's generator
directly; ``tablebase.games.loops.compiled_loop`` writes it out once per game,
caches it on disk and loads its ``loop``: the dense impartial solver's (a
batch's figures, or a run of levels recorded as they are settled) and the
scored solver's (its scan and its best moves). The moves of a batch, which
lookups need too, are ``games.loops.children_of``.
"""

from __future__ import annotations

_DENSE_LOOP = '''
import numpy as np
import numba

from tablebase.solve.impartial import _settle
from {moves_module} import {moves_name} as moves


@numba.njit(cache={cache})
def loop(keys, args, max_moves, grundy, remoteness, misere, out_g, out_r, out_best, out_mr, out_mbest):
    child = np.empty(max_moves + 1, dtype=np.int64)
    codes = np.empty(max_moves + 1, dtype=np.int64)
    seen = np.zeros(max_moves + 2, dtype=np.bool_)
    use_misere = misere.shape[0] > 0
    for t in range(keys.shape[0]):
        n = moves(keys[t], args, child, codes)
        out_g[t], out_r[t], out_best[t], out_mr[t], out_mbest[t] = _settle(
            n, child, codes, grundy, remoteness, misere, seen, use_misere
        )
<record>'''

DENSE = _DENSE_LOOP.replace("<record>", "")

# Keys of several levels in order: each position's figures are recorded as soon as it is
# settled, so the levels above it in the same call find them.
DENSE_RUN = _DENSE_LOOP.replace("<record>", """\
        grundy[keys[t]] = out_g[t]
        remoteness[keys[t]] = out_r[t]
        if use_misere:
            misere[keys[t]] = out_mr[t]
""")

SCORED_SCAN = '''
import numba

from tablebase.solve.scored import scan
from {moves_module} import {moves_name} as moves


@numba.njit(cache={cache})
def loop(keys, args, max_moves, pass_move, known):
    return scan(keys, moves, args, max_moves, pass_move, known)
'''

SCORED_BEST = '''
import numba

from tablebase.solve.scored import best_moves
from {moves_module} import {moves_name} as moves


@numba.njit(cache={cache})
def loop(keys, args, max_moves, pass_move, known, via_key, score_code):
    return best_moves(keys, moves, args, max_moves, pass_move, known, via_key, score_code)
'''


__all__ = ["DENSE", "DENSE_RUN", "SCORED_BEST", "SCORED_SCAN"]
