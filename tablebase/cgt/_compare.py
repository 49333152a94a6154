"""Comparison of canonical forms by id, with a bounded cache of answers.

``leq(g, h)`` decides ``G <= H`` by the definition, with shortcuts (stops, NUS
values in closed form, number avoidance). CGSuite caches no comparisons;
here answers are kept (bounded) because building canonical forms asks the
same questions again and again, many thousands of distinct ones for a
Domineering board of moderate size.
"""

from __future__ import annotations

from . import _table as T
from ._cache import LOCK, cache

_leq_cache = cache("leq", 1 << 20)

_nus = T._nus
_left = T._left
_right = T._right
_lfast = T._lfast
_rfast = T._rfast


def nus_nonnegative(x, ups: int, nim: int) -> bool:
    """Whether ``x + ups.^ + *nim >= 0``."""
    if x != 0:
        return x > 0
    if ups >= 2:
        return True
    if ups == 1:
        return nim != 1  # ^* is confused with 0, ^*k (k>1) is positive
    if ups == 0:
        return nim == 0
    return False


def leq(g: int, h: int) -> bool:
    """Whether ``G <= H``: no Left option of G is ``>= H`` and no Right option of H is ``<= G``.

    Shortcuts: stops settle many cases at once, before any cache lookup (``G <= H`` implies ``L(G) <= L(H)``
    and ``R(G) <= R(H)``, and ``L(G) < R(H)`` implies ``G < H``); two NUS values compare in closed form;
    against a number x, only the other side's options matter (number avoidance): ``x <= H`` iff no
    ``HR <= x``, and ``G <= x`` iff no ``GL >= x``.
    """
    if g == h:
        return True
    # Stops settle most questions before any cache or option is consulted.
    if _lfast[g] > _lfast[h] or _rfast[g] > _rfast[h]:
        return False
    if _lfast[g] < _rfast[h]:
        return True
    key = (g << 32) | h
    r = _leq_cache.get(key)
    if r is not None:
        return r
    ng = _nus[g]
    nh = _nus[h]
    if ng is not None and nh is not None:
        r = nus_nonnegative(nh[0] - ng[0], nh[1] - ng[1], nh[2] ^ ng[2])
    elif ng is not None and ng[1] == 0 and ng[2] == 0:
        r = True
        for hr in _right[h]:  # h is general, so its options exist
            if leq(hr, g):
                r = False
                break
    elif nh is not None and nh[1] == 0 and nh[2] == 0:
        r = True
        for gl in _left[g]:
            if leq(h, gl):
                r = False
                break
    else:
        r = True
        lo = _left[g]
        if lo is None:
            lo = T.left_options(g)
        for gl in lo:
            if leq(h, gl):
                r = False
                break
        if r:
            ro = _right[h]
            if ro is None:
                ro = T.right_options(h)
            for hr in ro:
                if leq(hr, g):
                    r = False
                    break
    with LOCK:
        if len(_leq_cache) >= _leq_cache.limit:
            _leq_cache.forget_oldest_half()
        _leq_cache[key] = r
    return r


def compare(g: int, h: int) -> str:
    """One of ``'='``, ``'<'``, ``'>'``, ``'||'`` (confused)."""
    if g == h:
        return "="
    a = leq(g, h)
    b = leq(h, g)
    if a:
        return "<"
    return ">" if b else "||"


# CGSuite's relational operators (org.cgsuite.lang.Ops) by the relations of G
# to H, as ``compare`` gives them, under which ``G op H`` is true. ``||`` is
# Winning Ways' sign for "confused with"; CGSuite spells it ``<>`` and reads
# ``||`` only between options.
RELATIONS: dict[str, tuple[str, ...]] = {
    "==": ("=",),
    "!=": ("<", ">", "||"),
    "<=": ("<", "="),
    ">=": (">", "="),
    "<": ("<",),
    ">": (">",),
    "<>": ("||",),
    "||": ("||",),
    "<|": ("<", "||"),  # less than or confused with: not G >= H
    "|>": (">", "||"),  # greater than or confused with: not G <= H
}


def holds(op: str, g: int, h: int) -> bool:
    """Whether ``G op H`` for one of ``RELATIONS``: one ``compare``, so at most two ``leq``."""
    return compare(g, h) in RELATIONS[op]


def outcome(g: int) -> str:
    """Outcome class: ``L``, ``R``, ``N`` (first player wins) or ``P``."""
    zero = T.ZERO
    ge = leq(zero, g)
    le = leq(g, zero)
    if ge and le:
        return "P"
    if ge:
        return "L"
    if le:
        return "R"
    return "N"
