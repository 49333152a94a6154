"""Construction of canonical forms from option lists.

``construct(lefts, rights)`` returns the id of the canonical form of
``{lefts | rights}`` (option ids, any order, repeats allowed), found in the
table if it is there, else made canonical before anything is stored.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable

from . import _table as T
from ._cache import cache
from ._compare import leq

_nus = T._nus
_left = T._left
_right = T._right
_by_options = T._by_options
_lfast = T._lfast
_rfast = T._rfast

# Raw (deduplicated, sorted) option pairs that were not canonical -> result.
_raw_cache = cache("construct", 1 << 18)


def number_between(a, b):
    """The simplest number strictly between ``a`` and ``b`` (None = unbounded)."""
    if a is None and b is None:
        return 0
    if a is None:
        return 0 if b > 0 else math.ceil(b) - 1
    if b is None:
        return 0 if a < 0 else math.floor(a) + 1
    if a < 0 < b:
        return 0
    n = math.floor(a) + 1 if a >= 0 else math.ceil(b) - 1
    if a < n < b:
        return n
    # No integer strictly between: the dyadic with the smallest denominator.
    den = 2
    while True:
        m = math.floor(a * den) + 1
        if Fraction(m, den) < b:
            return T.normalize_number(Fraction(m, den))
        den *= 2


def _leq_id_lists(h: int, lo, ro) -> bool:
    """Whether ``H <= {lo | ro}`` for a form given only by its option lists."""
    for gr in ro:
        if leq(gr, h):
            return False
    for hl in T.left_options(h):
        if _lists_leq_id(lo, ro, hl):
            return False
    return True


def _lists_leq_id(lo, ro, h: int) -> bool:
    """Whether ``{lo | ro} <= H``."""
    for gl in lo:
        if leq(h, gl):
            return False
    for hr in T.right_options(h):
        if _leq_id_lists(hr, lo, ro):
            return False
    return True


def _undominated_left(opts: list[int]) -> list[int]:
    """Left options not ``<=`` another Left option."""
    if len(opts) < 2:
        return opts
    lf, rf = _lfast, _rfast
    keep = []
    for a in opts:
        la, ra = lf[a], rf[a]
        for b in opts:
            # a <= b needs both stops of a at most b's: most pairs fail that at once.
            if b != a and la <= lf[b] and ra <= rf[b] and leq(a, b):
                break
        else:
            keep.append(a)
    return keep


def _undominated_right(opts: list[int]) -> list[int]:
    """Right options not ``>=`` another Right option."""
    if len(opts) < 2:
        return opts
    lf, rf = _lfast, _rfast
    keep = []
    for a in opts:
        la, ra = lf[a], rf[a]
        for b in opts:
            if b != a and lf[b] <= la and rf[b] <= ra and leq(b, a):
                break
        else:
            keep.append(a)
    return keep


def _simplify(lo: list[int], ro: list[int]) -> tuple[list[int], list[int]]:
    """Remove dominated options and bypass reversible ones until neither applies."""
    while True:
        lo = _undominated_left(lo)
        ro = _undominated_right(ro)
        changed = False
        new_lo: list[int] = []
        for gl in lo:
            for glr in T.right_options(gl):
                if _leq_id_lists(glr, lo, ro):
                    new_lo.extend(T.left_options(glr))
                    changed = True
                    break
            else:
                new_lo.append(gl)
        if changed:
            lo = list(set(new_lo))
        new_ro: list[int] = []
        changed_r = False
        for gr in ro:
            for grl in T.left_options(gr):
                if _lists_leq_id(lo, ro, grl):
                    new_ro.extend(T.right_options(grl))
                    changed_r = True
                    break
            else:
                new_ro.append(gr)
        if changed_r:
            ro = list(set(new_ro))
        if not changed and not changed_r:
            return lo, ro


def _nus_candidate(lo: tuple[int, ...], ro: tuple[int, ...]) -> int | None:
    """A NUS id whose canonical options might be ``lo | ro``, if the shape fits."""
    parts_l = [_nus[g] for g in lo]
    parts_r = [_nus[g] for g in ro]
    if None in parts_l or None in parts_r:
        return None
    if all(p[1] == 0 and p[2] == 0 for p in parts_l + parts_r):
        a = max((p[0] for p in parts_l), default=None)
        b = min((p[0] for p in parts_r), default=None)
        if a is not None and b is not None and a >= b:
            return T.nus_id(a, 0, 1) if a == b and len(lo) == len(ro) == 1 else None
        return T.nus_id(number_between(a, b))
    if lo == ro:
        x = parts_l[0][0]
        return T.nus_id(x, 0, len(lo)) if all(p[0] == x and p[1] == 0 for p in parts_l) else None
    if len(lo) == 1 and parts_l[0][1] == 0 and parts_l[0][2] == 0:
        x = parts_l[0][0]
        if len(ro) == 1:
            y, ups, nim = parts_r[0]
            if y == x and ups >= 0:
                return T.nus_id(x, ups + 1, nim ^ 1)
        elif len(ro) == 2:
            return T.nus_id(x, -1, 1)
        return None
    if len(ro) == 1 and parts_r[0][1] == 0 and parts_r[0][2] == 0:
        x = parts_r[0][0]
        if len(lo) == 1:
            y, ups, nim = parts_l[0]
            if y == x and ups <= 0:
                return T.nus_id(x, ups - 1, nim ^ 1)
        elif len(lo) == 2:
            return T.nus_id(x, 1, 1)
    return None


def intern_canonical(lo: tuple[int, ...], ro: tuple[int, ...]) -> int:
    """Id of the canonical form with these (sorted, canonical) option tuples."""
    g = _by_options.get((lo, ro))
    if g is not None:
        return g
    cand = _nus_candidate(lo, ro)
    if cand is not None:
        T.options(cand)  # building its options registers them
        g = _by_options.get((lo, ro))
        if g is not None:
            return g
    return T.register_general(lo, ro)


def construct(lefts: Iterable[int], rights: Iterable[int]) -> int:
    """Id of the canonical form of ``{lefts | rights}``.

    1. options that already form a stored canonical form are found by a dict
       lookup, and raw option sets seen before are found in a second cache;
    2. if every option is a number the result is either the simplest number in
       between or a form with one option a side, with no comparison at all;
    3. otherwise dominated options are removed and reversible ones bypassed,
       checking reversibility against the option lists themselves, so nothing
       is stored until the form is canonical;
    4. a canonical form whose options match the pattern of a number + ups +
       nimber value is given that value's id, so equal values share one id.
    """
    lo = tuple(sorted(set(lefts)))
    ro = tuple(sorted(set(rights)))
    key = (lo, ro)
    g = _by_options.get(key)
    if g is not None:
        return g
    g = _raw_cache.get(key)
    if g is not None:
        return g
    return _raw_cache.put(key, _construct_new(lo, ro))


def _construct_new(lo: tuple[int, ...], ro: tuple[int, ...]) -> int:
    all_numbers = True
    for o in lo + ro:
        p = _nus[o]
        if p is None or p[1] != 0 or p[2] != 0:
            all_numbers = False
            break
    if all_numbers:
        a_id = max(lo, key=lambda o: _nus[o][0], default=None)
        b_id = min(ro, key=lambda o: _nus[o][0], default=None)
        a = None if a_id is None else _nus[a_id][0]
        b = None if b_id is None else _nus[b_id][0]
        if a is None or b is None or a < b:
            return T.nus_id(number_between(a, b))
        # A hot or tepid switch between two numbers is already canonical.
        return intern_canonical((a_id,), (b_id,))
    new_lo, new_ro = _simplify(list(lo), list(ro))
    return intern_canonical(tuple(sorted(new_lo)), tuple(sorted(new_ro)))
