"""Sum and negation of canonical forms by id, in bounded caches keyed by ids (as CGSuite's operation table)."""

from __future__ import annotations

from typing import Iterable

from . import _table as T
from ._build import construct, intern_canonical
from ._cache import cache

_nus = T._nus
_left = T._left
_right = T._right

_sum_cache = cache("sum", 1 << 18)
_neg_cache = cache("negative", 1 << 16)


def add(g: int, h: int) -> int:
    """Id of ``G + H``."""
    zero = T.ZERO
    if g == zero:
        return h
    if h == zero:
        return g
    key = (g << 32) | h if g < h else (h << 32) | g
    r = _sum_cache.get(key)
    if r is not None:
        return r
    ng = _nus[g]
    nh = _nus[h]
    if ng is not None and nh is not None:
        r = T.nus_id(ng[0] + nh[0], ng[1] + nh[1], ng[2] ^ nh[2])
    elif ng is not None and ng[1] == 0 and ng[2] == 0:
        # Number translation: x + H = {HL + x | HR + x} when H is not a number.
        r = construct([add(hl, g) for hl in _left[h]], [add(hr, g) for hr in _right[h]])
    elif nh is not None and nh[1] == 0 and nh[2] == 0:
        r = construct([add(gl, h) for gl in _left[g]], [add(gr, h) for gr in _right[g]])
    else:
        gl, gr = T.options(g)
        hl, hr = T.options(h)
        lefts = [add(x, h) for x in gl]
        lefts.extend(add(g, x) for x in hl)
        rights = [add(x, h) for x in gr]
        rights.extend(add(g, x) for x in hr)
        r = construct(lefts, rights)
    return _sum_cache.put(key, r)


def neg(g: int) -> int:
    """Id of ``-G``."""
    r = _neg_cache.get(g)
    if r is not None:
        return r
    p = _nus[g]
    if p is not None:
        r = T.nus_id(-p[0], -p[1], p[2])
    else:
        # The negative of a canonical form is canonical: no simplification.

        lo = tuple(sorted(neg(x) for x in _right[g]))
        ro = tuple(sorted(neg(x) for x in _left[g]))
        r = intern_canonical(lo, ro)
    _neg_cache.put(r, g)
    return _neg_cache.put(g, r)


def sub(g: int, h: int) -> int:
    """Id of ``G - H``."""
    return add(g, neg(h))


def sum_all(ids: Iterable[int]) -> int:
    """Id of the sum of any number of forms (0 for none).

    Solvers call this for every move that splits a position into parts, mostly
    with sums met before, so the cache lookup of ``add`` is done here inline.
    """
    zero = T.ZERO
    total = zero
    for h in ids:
        if total == zero:
            total = h
        elif h != zero:
            r = _sum_cache.get((total << 32) | h if total < h else (h << 32) | total)
            total = r if r is not None else add(total, h)
    return total
