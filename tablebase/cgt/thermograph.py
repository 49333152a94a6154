"""Thermographs and their walls, printed as CGSuite prints them.

CGSuite writes a wall (a ``Trajectory``) as its mast value, its critical
points from the top down, and the slopes of its pieces from the top down
(the mast's slope first; a slope is dx/dt, so a left wall leans with -1 and
a right wall with +1): ``Thermograph(0,[1],[0,-1],0,[1],[0,1])`` is the
thermograph of ``+-1``: walls from ``1 - t`` and ``-1 + t`` at the base
``t = -1`` up to the mast at 0 from ``t = 1``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Union

from ._thermo import Wall, critical_points, value_at

Number = Union[int, Fraction]


def _text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _number(x: Fraction) -> Number:
    return x.numerator if x.denominator == 1 else x


class Trajectory:
    """One wall of a thermograph: a continuous piecewise-linear ``x(t)`` for ``t >= -1``."""

    __slots__ = ("_wall",)

    def __init__(self, wall: Wall) -> None:
        self._wall = wall

    @property
    def critical_points(self) -> list[Number]:
        """Temperatures where the slope changes, highest first."""
        return [_number(t) for t in critical_points(self._wall)[0]]

    @property
    def slopes(self) -> list[Number]:
        """Slopes (dx/dt) of the pieces, from the mast down to the base."""
        return [_number(s) for s in critical_points(self._wall)[1]]

    @property
    def mast(self) -> Number:
        """The value at the highest critical point (the wall's value from there up)."""
        return _number(critical_points(self._wall)[2])

    def value_at(self, t: Number) -> Number:
        """The wall's value at temperature ``t >= -1``."""
        if t < -1:
            raise ValueError("a thermograph starts at temperature -1")
        return _number(value_at(self._wall, Fraction(t)))

    def body(self) -> str:
        cps, slopes, mast = critical_points(self._wall)
        return f"{_text(mast)},[{','.join(map(_text, cps))}],[{','.join(map(_text, slopes))}]"

    def __str__(self) -> str:
        return f"Trajectory({self.body()})"

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trajectory) and self.body() == other.body()

    def __hash__(self) -> int:
        return hash(self.body())


class Thermograph:
    """A thermograph: two walls meeting at the temperature, the mast above them."""

    __slots__ = ("left_wall", "right_wall", "temperature", "mast")

    def __init__(self, left: Wall, right: Wall, temperature: Fraction, mast: Fraction) -> None:
        self.left_wall = Trajectory(left)
        self.right_wall = Trajectory(right)
        self.temperature: Number = _number(temperature)
        self.mast: Number = _number(mast)

    def value_at(self, t: Number) -> tuple[Number, Number]:
        """``(left wall, right wall)`` at temperature ``t``: the stops of G cooled by ``t``."""
        return self.left_wall.value_at(t), self.right_wall.value_at(t)

    def __str__(self) -> str:
        return f"Thermograph({self.left_wall.body()},{self.right_wall.body()})"

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Thermograph) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))
