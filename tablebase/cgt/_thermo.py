"""Thermographs, mean, temperature, stops and birthdays, exactly, as CGSuite computes them.

A thermograph's walls are continuous piecewise-linear functions of ``t >= -1``
(CGSuite's ``Trajectory``), built from the options' walls (``thermograph``).
"""

from __future__ import annotations

from fractions import Fraction

from . import _table as T
from ._cache import cache

# ((t, x), ...) breakpoints from t = -1 up, and the slope after the last one.
Wall = tuple[tuple[tuple[Fraction, Fraction], ...], Fraction]

BASE = Fraction(-1)
_thermo = cache("thermograph", 1 << 15)
_birthday = cache("birthday", 1 << 15)


def stops(g: int) -> tuple:
    """``(left stop, right stop)`` of ``g`` as numbers (kept in the table for every form)."""
    return T._lstop[g], T._rstop[g]


def const(x) -> Wall:
    """A vertical mast at ``x`` from the base up."""
    return ((BASE, Fraction(x)),), Fraction(0)


def value_at(w: Wall, t: Fraction) -> Fraction:
    pts, tail = w
    prev_t, prev_x = pts[0]
    for pt, px in pts[1:]:
        if t <= pt:
            return prev_x + (px - prev_x) * (t - prev_t) / (pt - prev_t)
        prev_t, prev_x = pt, px
    return prev_x + tail * (t - prev_t)


def _tilt(w: Wall, slope: int) -> Wall:
    """The wall ``x(t) + slope * t``."""
    pts, tail = w
    return tuple((t, x + slope * t) for t, x in pts), tail + slope


def _envelope(walls: list[Wall], pick) -> Wall:
    """Pointwise ``pick`` (max or min) of piecewise-linear walls."""
    if len(walls) == 1:
        return walls[0]
    ts = sorted({t for w in walls for t, _ in w[0]})
    cuts = set(ts)
    # Between consecutive breakpoints (and after the last) every wall is
    # linear, so the envelope can only bend where two walls cross.
    for a, b in zip(ts, ts[1:] + [None]):
        span = 1 if b is None else b - a
        lines = []
        for w in walls:
            va = value_at(w, a)
            lines.append((va, (value_at(w, a + span) - va) / span))
        for i, (fa, fs) in enumerate(lines):
            for ga, gs in lines[i + 1:]:
                if fs != gs:
                    t = a + (ga - fa) / (fs - gs)
                    if a < t and (b is None or t < b):
                        cuts.add(t)
    ts = sorted(cuts)
    pts = [(t, pick(value_at(w, t) for w in walls)) for t in ts]
    after = pick(value_at(w, ts[-1] + 1) for w in walls)
    return _simplify(pts, after - pts[-1][1])


def _simplify(pts, tail_slope) -> Wall:
    """Drop breakpoints where the slope does not change (keeps walls small)."""
    out = [pts[0]]
    for i in range(1, len(pts)):
        t, x = pts[i]
        slope_in = (x - out[-1][1]) / (t - out[-1][0])
        if i + 1 < len(pts):
            nt, nx = pts[i + 1]
            slope_out = (nx - x) / (nt - t)
        else:
            slope_out = tail_slope
        if slope_in != slope_out:
            out.append((t, x))
    return tuple(out), Fraction(tail_slope)


def _meeting_point(left: Wall, right: Wall) -> Fraction:
    """Least ``t >= -1`` with ``left(t) <= right(t)``; left - right never increases."""
    ts = sorted({t for t, _ in left[0]} | {t for t, _ in right[0]})
    prev_t, prev_d = None, None
    for t in ts:
        d = value_at(left, t) - value_at(right, t)
        if d <= 0:
            if prev_t is None:
                return t
            return prev_t + (t - prev_t) * prev_d / (prev_d - d)
        prev_t, prev_d = t, d
    return prev_t + prev_d / (right[1] - left[1])


def _cut(w: Wall, temp: Fraction) -> Wall:
    """The wall below ``temp`` and the vertical mast above it."""
    pts = [(t, x) for t, x in w[0] if t < temp]
    pts.append((temp, value_at(w, temp)))
    return _simplify(pts, Fraction(0))


def thermograph(g: int) -> tuple[Wall, Wall, Fraction, Fraction]:
    """``(left wall, right wall, temperature, mean)`` of ``g``.

    A wall is a continuous piecewise-linear function ``x(t)`` for ``t >= -1``
    (CGSuite's ``Trajectory``): the breakpoints ``(t, x)`` from ``t = -1`` up,
    and the slope after the last one. The left scaffold of G is the maximum over
    its Left options of (their right wall minus t), the right scaffold the
    minimum over Right options of (their left wall plus t); each wall follows
    its scaffold up to the temperature, where the scaffolds meet, and is the
    vertical mast above it. For a short game the left scaffold minus the right
    one never increases (slopes -1 or 0 against 0 or +1), so they meet once.

    Starting at ``t = -1`` rather than 0 is what gives numbers their
    temperatures (``m/2^k`` has ``-1/2^k``; an integer is a mast all the way
    down, temperature -1) and what ``Cool`` below 0 needs. As in CGSuite, a
    number + infinitesimal ``x + n.^ + *k`` has the thermograph of the simplest
    of ``x``, ``x*``, ``x^``, ``xv`` that it shares, which avoids recursing
    through ``^9*8``'s long chain of options.
    """
    r = _thermo.get(g)
    if r is not None:
        return r
    p = T._nus[g]
    if p is not None and p[1] == 0 and p[2] == 0 and isinstance(p[0], int):
        return _thermo.put(g, (const(p[0]), const(p[0]), BASE, Fraction(p[0])))
    if p is not None and (p[1] or p[2]):
        x, ups, nim = p
        # x + n.^ + *k looks like x* (n = 0, or |n| = 1 with *), else like x^ or xv.
        basic = T.nus_id(x, 0, 1) if ups == 0 or (nim == 1 and abs(ups) == 1) else T.nus_id(x, 1 if ups > 0 else -1, 0)
        if basic != g:
            return _thermo.put(g, thermograph(basic))
    lo, ro = T.options(g)
    left = _envelope([_tilt(thermograph(x)[1], -1) for x in lo], max)
    right = _envelope([_tilt(thermograph(x)[0], +1) for x in ro], min)
    temp = _meeting_point(left, right)
    mean = value_at(left, temp)
    return _thermo.put(g, (_cut(left, temp), _cut(right, temp), temp, mean))


def mean(g: int) -> Fraction:
    """Where the thermograph's mast stands."""
    p = T._nus[g]
    return Fraction(p[0]) if p is not None else thermograph(g)[3]


def temperature(g: int) -> Fraction:
    """Where the thermograph's walls meet: -1 for integers, -1/2^k for m/2^k, 0 for x + infinitesimal."""
    p = T._nus[g]
    if p is not None:
        x, ups, nim = p
        if ups or nim:
            return Fraction(0)
        return Fraction(-1, 1 if isinstance(x, int) else x.denominator)
    return thermograph(g)[2]


def critical_points(w: Wall) -> tuple[list[Fraction], list[Fraction], Fraction]:
    """CGSuite's view of a wall: critical points (descending), slopes from the top, mast value."""
    pts, tail = w
    cps = [t for t, _ in pts[1:]][::-1]
    slopes = [tail]
    for (t0, x0), (t1, x1) in reversed(list(zip(pts, pts[1:]))):
        slopes.append((x1 - x0) / (t1 - t0))
    mast = pts[-1][1]
    return cps, slopes, mast


def birthday(g: int) -> int:
    """The birthday (depth of the canonical game tree)."""
    r = _birthday.get(g)
    if r is not None:
        return r
    p = T.nus_parts(g)
    if p is not None and p[1] == 0:
        x, _, nim = p
        if nim == 0:
            if isinstance(x, int):
                return abs(x)
            return int(abs(x)) + x.denominator.bit_length()
        if x == 0:
            return nim
    lo, ro = T.options(g)
    return _birthday.put(g, 1 + max(birthday(x) for x in lo + ro))
