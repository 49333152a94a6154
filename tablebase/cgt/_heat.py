"""Cooling, heating, overheating, incentives, Norton products and ordinal sums, by id.

Each follows CGSuite's ``CanonicalShortGameOps`` on canonical forms, its
definition in its function's docstring. CGSuite keeps ordinal sums and Norton
products in its operation table; here they and the temperature operations
share bounded caches keyed by the operands' ids, so a large form is cooled or
heated once per distinct follower rather than once per path to it.
"""

from __future__ import annotations

from fractions import Fraction

from . import _table as T
from ._arith import add, neg
from ._build import construct
from ._cache import cache
from ._compare import leq
from ._errors import CGTError
from ._thermo import mean, temperature
from ._uptimal import expansion

_ops = cache("temperature operations", 1 << 17)
_ordinal = cache("ordinal sum", 1 << 16)
_norton = cache("norton product", 1 << 14)


def is_integer(g: int) -> bool:
    p = T._nus[g]
    return p is not None and p[1] == 0 and p[2] == 0 and isinstance(p[0], int)


def cool(g: int, t: Fraction, t_id: int) -> int:
    """``G`` cooled by the number ``t > -1`` (``t_id`` is the id of ``t``), ``G_t``: an integer is itself; a
    game whose temperature is below ``t`` is its mean; otherwise ``{G^L_t - t | G^R_t + t}``. Cooling by
    ``t`` at or below -1 is refused, as CGSuite refuses it."""
    if t <= -1:
        raise CGTError(f"Invalid cooling temperature (must be > -1): {t}")
    return _cool(g, Fraction(t), t_id)


def _cool(g: int, t: Fraction, t_id: int) -> int:
    if is_integer(g):
        return g
    key = ("cool", g, t_id)
    r = _ops.get(key)
    if r is not None:
        return r
    if temperature(g) < t:
        r = T.number_id(mean(g))
    else:
        lo, ro = T.options(g)
        minus_t = neg(t_id)
        r = construct([add(_cool(x, t, t_id), minus_t) for x in lo], [add(_cool(x, t, t_id), t_id) for x in ro])
    return _ops.put(key, r)


def heat(g: int, t: int) -> int:
    """``G`` heated by the game ``t`` (ids): a number is itself; otherwise ``{heat(G^L) + t | heat(G^R) - t}``
    (heating by ``*`` is how CGSuite finds reduced forms)."""
    if T.is_number(g):
        return g
    key = ("heat", g, t)
    r = _ops.get(key)
    if r is None:
        lo, ro = T.options(g)
        minus_t = neg(t)
        r = _ops.put(key, construct([add(heat(x, t), t) for x in lo], [add(heat(x, t), minus_t) for x in ro]))
    return r


def overheat(g: int, s: int, t: int) -> int:
    """``G`` overheated from ``s`` to ``t`` (ids): an integer ``n`` is ``n.s`` (n copies of ``s``); otherwise
    ``{overheat(G^L) + t | overheat(G^R) - t}``."""
    if is_integer(g):
        return norton(g, s)
    key = ("overheat", g, s, t)
    r = _ops.get(key)
    if r is None:
        lo, ro = T.options(g)
        minus_t = neg(t)
        r = _ops.put(key, construct([add(overheat(x, s, t), t) for x in lo],
                                    [add(overheat(x, s, t), minus_t) for x in ro]))
    return r


def incentives(g: int, left: bool = True, right: bool = True) -> list[int]:
    """The undominated incentives of ``G`` of the chosen sides, each value once: the Left incentives
    ``G^L - G`` and Right incentives ``G - G^R``, dominated ones (``<=`` another) removed."""
    lo, ro = T.options(g)
    minus_g = neg(g)
    found = ([add(x, minus_g) for x in lo] if left else []) + ([add(g, neg(x)) for x in ro] if right else [])
    found = sorted(set(found))
    return [a for a in found if not any(b != a and leq(a, b) for b in found)]


def multiple(n: int, u: int) -> int:
    """``n`` copies of ``U`` (the negative of ``-n`` copies when n < 0), by doubling."""
    if n < 0:
        n, u = -n, neg(u)
    total = T.ZERO
    while n:
        if n & 1:
            total = add(total, u)
        n >>= 1
        if n:
            u = add(u, u)
    return total


def norton(g: int, u: int) -> int:
    """The Norton product ``G.U``: n copies of ``U`` for an integer n, otherwise
    ``{G^L.U + (U + I) | G^R.U - (U + I)}`` over the incentives I of U."""
    key = (g, u)
    r = _norton.get(key)
    if r is not None:
        return r
    if is_integer(g):
        r = multiple(T._nus[g][0], u)  # type: ignore[index]
    else:
        bonus = [add(u, i) for i in incentives(u)]
        lo, ro = T.options(g)
        lefts = [add(norton(x, u), b) for x in lo for b in bonus]
        rights = [add(norton(x, u), neg(b)) for x in ro for b in bonus]
        r = construct(lefts, rights)
    return _norton.put(key, r)


def ordinal_sum(g: int, h: int) -> int:
    """The ordinal sum ``G:H`` (G's canonical form is the base; H's options follow):
    ``{G^L, G:H^L | G^R, G:H^R}``."""
    pg, ph = T._nus[g], T._nus[h]
    if pg is not None and pg[1] == 0 and ph is not None and ph[0] == 0 and ph[1] == 0:
        return T.nus_id(pg[0], 0, pg[2] + ph[2])
    key = (g, h)
    r = _ordinal.get(key)
    if r is None:
        glo, gro = T.options(g)
        hlo, hro = T.options(h)
        r = _ordinal.put(key, construct(list(glo) + [ordinal_sum(g, x) for x in hlo],
                                        list(gro) + [ordinal_sum(g, x) for x in hro]))
    return r


def freeze(g: int) -> int:
    """``G`` cooled by its own temperature; an uptimal (numbers included) is its own freeze."""
    if expansion(g) is not None:
        return g
    t = temperature(g)
    return _cool(g, t, T.number_id(t))
