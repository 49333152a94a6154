"""Stops, thermographs (mean and temperature) and birthdays, exactly.

A thermograph wall is kept for temperatures ``t >= 0`` as a piecewise-linear
function ``x(t)``: a list of breakpoints ``(t, x)`` starting at ``t = 0`` and
the slope that holds after the last one. The left scaffold of G is the
maximum over its Left options of (their right wall minus t), the right
scaffold the minimum over Right options of (their left wall plus t); the
temperature is where they meet and the mean is the mast's position.

Canonical forms that are not numbers have left stop >= right stop, so their
temperature is >= 0 and walls on ``t >= 0`` suffice. Numbers follow
CGSuite's convention: an integer has temperature -1 and ``m/2^k`` has
temperature ``-1/2^k``.
"""

from __future__ import annotations

from fractions import Fraction

from . import _table as T

Wall = tuple[tuple[tuple[Fraction, Fraction], ...], Fraction]

_thermo: dict[int, tuple[Wall, Wall, Fraction, Fraction]] = {}
_birthday: dict[int, int] = {}


def stops(g: int) -> tuple:
    """``(left stop, right stop)`` of ``g`` as numbers."""
    return T._lstop[g], T._rstop[g]


def _const(x) -> Wall:
    return (((Fraction(0), Fraction(x)),), Fraction(0))


def _value_at(w: Wall, t: Fraction) -> Fraction:
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
            va = _value_at(w, a)
            lines.append((va, (_value_at(w, a + span) - va) / span))
        for i, (fa, fs) in enumerate(lines):
            for ga, gs in lines[i + 1:]:
                if fs != gs:
                    t = a + (ga - fa) / (fs - gs)
                    if a < t and (b is None or t < b):
                        cuts.add(t)
    ts = sorted(cuts)
    pts = [(t, pick(_value_at(w, t) for w in walls)) for t in ts]
    last = ts[-1]
    after = pick(_value_at(w, last + 1) for w in walls)
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


def thermograph(g: int) -> tuple[Wall, Wall, Fraction, Fraction]:
    """``(left wall, right wall, temperature, mean)`` of ``g``."""
    r = _thermo.get(g)
    if r is not None:
        return r
    p = T.nus_parts(g)
    if p is not None:
        x, ups, nim = p
        if ups == 0 and nim == 0:
            temp = Fraction(-1) if isinstance(x, int) else Fraction(-1, x.denominator)
        else:
            temp = Fraction(0)
        r = (_const(x), _const(x), temp, Fraction(x))
    else:
        lo, ro = T.options(g)
        left = _envelope([_tilt(thermograph(x)[1], -1) for x in lo], max)
        right = _envelope([_tilt(thermograph(x)[0], +1) for x in ro], min)
        temp = _meeting_point(left, right)
        mean = _value_at(left, temp)
        r = (_cut(left, temp), _cut(right, temp), temp, mean)
    _thermo[g] = r
    return r


def _meeting_point(left: Wall, right: Wall) -> Fraction:
    """Least ``t >= 0`` with ``left(t) <= right(t)`` (left - right never increases)."""
    ts = sorted({t for t, _ in left[0]} | {t for t, _ in right[0]})
    prev_t, prev_d = None, None
    for t in ts:
        d = _value_at(left, t) - _value_at(right, t)
        if d <= 0:
            if prev_t is None:
                return Fraction(0)
            return prev_t + (t - prev_t) * prev_d / (prev_d - d)
        prev_t, prev_d = t, d
    slope = left[1] - right[1]
    return prev_t + prev_d / -slope


def _cut(w: Wall, temp: Fraction) -> Wall:
    """The wall below ``temp`` and the vertical mast above it."""
    pts = [(t, x) for t, x in w[0] if t < temp]
    pts.append((temp, _value_at(w, temp)))
    return tuple(pts), Fraction(0)


def mean(g: int) -> Fraction:
    """Where the thermograph's mast stands."""
    return thermograph(g)[3]


def temperature(g: int) -> Fraction:
    """Where the thermograph's walls meet (CGSuite's negative values for numbers)."""
    return thermograph(g)[2]


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
                r = abs(x)
            else:
                r = int(abs(x)) + x.denominator.bit_length()
        elif x == 0:
            r = nim
    if r is None:
        lo, ro = T.options(g)
        r = 1 + max(birthday(x) for x in lo + ro)
    _birthday[g] = r
    return r
