"""Infinitesimals: atomic weights, reduced canonical forms, far stars, all-small games.

Following CGSuite's ``CanonicalShortGameOps`` and ``CanonicalShortGame``; the
definitions are in ``atomic_weight``'s and ``reduced``'s docstrings.
"""

from __future__ import annotations

import math

from . import _table as T
from ._arith import add, neg
from ._build import construct
from ._cache import cache
from ._compare import leq
from ._errors import CGTError
from ._heat import heat, is_integer, norton, ordinal_sum
from ._uptimal import expansion

_weights = cache("atomic weight", 1 << 15)
_projections = cache("star projection", 1 << 15)
_far_stars = cache("far star", 1 << 15)
_all_small = cache("all small", 1 << 15)


def is_infinitesimal(g: int) -> bool:
    """Both stops are 0 (CGSuite's ``IsInfinitesimal``; 0 itself counts)."""
    return T._lstop[g] == 0 and T._rstop[g] == 0


def is_all_small(g: int) -> bool:
    """Every follower with a move for one player has moves for both (no number but 0 in it)."""
    p = T._nus[g]
    if p is not None:
        return p[0] == 0
    r = _all_small.get(g)
    if r is None:
        lo, ro = T.options(g)
        r = _all_small.put(g, all(is_all_small(x) for x in lo + ro))
    return r


def far_star(g: int) -> int:
    """1 + the largest nimber among the followers (at least 1), as CGSuite's ``farStar``."""
    p = T._nus[g]
    if p is not None and p[0] == 0 and p[1] == 0:
        return p[2] + 1
    r = _far_stars.get(g)
    if r is None:
        lo, ro = T.options(g)
        r = _far_stars.put(g, max([1] + [far_star(x) for x in lo + ro]))
    return r


def _naive_weight(g: int) -> int:
    p = T._nus[g]
    if p is not None:
        return T.number_id(p[1])
    r = _weights.get(g)
    if r is not None:
        return r
    lo, ro = T.options(g)
    lefts = [add(_naive_weight(x), T.number_id(-2)) for x in lo]
    rights = [add(_naive_weight(x), T.number_id(2)) for x in ro]
    r = construct(lefts, rights)
    if is_integer(r):
        star = T.nus_id(0, 0, far_star(g))
        below, above = leq(g, star), leq(star, g)
        if below and not above:
            r = T.number_id(max(_least_integer_beyond(x) for x in lefts)) if lefts else T.ZERO
        elif above and not below:
            r = T.number_id(min(-_least_integer_beyond(neg(x)) for x in rights)) if rights else T.ZERO
    return _weights.put(g, r)


def _least_integer_beyond(x: int) -> int:
    """The least integer ``n`` with ``n |> x`` (n is not <= x)."""
    n = math.ceil(T._rstop[x])
    return n + 1 if leq(T.number_id(n), x) else n


def atomic_weight(g: int) -> int:
    """The atomic weight of ``G``; CGTError when G has none.

    Defined for infinitesimals only (both stops 0). For
    an uptimal it is its first coefficient (``^<2>`` has 0, ``^^*`` has 2).
    Otherwise the naive weight is ``{AW(G^L) - 2 | AW(G^R) + 2}``, except in
    the eccentric case where that is an integer and G is above (below) the far
    star: then it is the least integer ``n`` with ``n |> AW(G^L) - 2`` for every
    Left option (the greatest with ``n <| AW(G^R) + 2``), or 0 when that side has
    no option. An all-small game always has the naive weight; any other
    infinitesimal has it only when ``G - AW.^`` lies between ``-e`` and ``e`` for
    ``e = ^* + (*N : -1)`` (N the power of two at or above the far star),
    otherwise it is not atomic.
    """
    if not is_infinitesimal(g):
        raise CGTError("That game is not atomic (it is not infinitesimal)")
    e = expansion(g)
    if e is not None:
        return T.number_id(e.coefs[0] if e.coefs else 0)
    w = _naive_weight(g)
    if is_all_small(g):
        return w
    difference = add(g, neg(norton(w, T.nus_id(0, 1, 0))))
    power = 2
    while power < far_star(g):
        power <<= 1
    epsilon = add(T.nus_id(0, 1, 1), ordinal_sum(T.nus_id(0, 0, power), T.number_id(-1)))
    if leq(difference, epsilon) and leq(neg(epsilon), difference):
        return w
    raise CGTError("That game is not atomic")


def is_atomic(g: int) -> bool:
    try:
        atomic_weight(g)
    except CGTError:
        return False
    return True


def reduced(g: int) -> int:
    """The reduced canonical form: the simplest game infinitesimally close to ``G``.

    A number + infinitesimal is its number; otherwise G heated by ``*`` with
    every ``x*`` then replaced by ``x`` (CGSuite's star projection).
    """
    p = T._nus[g]
    if p is not None:
        return T.number_id(p[0])
    return _star_projection(heat(g, T.STAR))


def _star_projection(g: int) -> int:
    p = T._nus[g]
    if p is not None:
        if p[1] == 0 and p[2] == 0:
            return g
        if p[1] == 0 and p[2] == 1:
            return T.number_id(p[0])
    r = _projections.get(g)
    if r is None:
        lo, ro = T.options(g)
        r = _projections.put(g, construct([_star_projection(x) for x in lo], [_star_projection(x) for x in ro]))
    return r
