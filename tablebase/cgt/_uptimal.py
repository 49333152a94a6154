"""Uptimals: ``x + *m + a1.^ + a2.^<2> + ... + ak.^<k>``, recognised in canonical forms.

``^<n>`` (up-nth, Siegel's ``^^n``) is ``{0 | v<n-1>... }`` built as CGSuite's
``^.Pow(n)``: ``{0 | * - ^[n-1]}``, where ``^[n] = ^.PowTo(n) = {^[n-1] | *}``
equals ``^ + ^<2> + ... + ^<n>``. So ``^<2> = {0|v*}`` and ``^[2] = {^|*}``.
``expansion(g)`` says whether a form is an uptimal, for printing and ordering.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple, Union

from . import _table as T
from ._arith import add, neg
from ._build import construct
from ._cache import cache

Number = Union[int, Fraction]

_expansions = cache("uptimal expansion", 1 << 16)
_powers = cache("up powers", 1 << 12)


class Expansion(NamedTuple):
    """``number + *nim + sum of coefs[i-1] . ^<i>``; ``coefs`` has no trailing zero."""

    number: Number
    nim: int
    coefs: tuple[int, ...]

    @property
    def is_unit(self) -> bool:
        """One coefficient is +-1 and the others are 0 (printed ``^<n>``, ``v<n>``)."""
        nonzero = [c for c in self.coefs if c]
        return len(nonzero) <= 1 and all(abs(c) == 1 for c in nonzero)

    @property
    def is_unit_sum(self) -> bool:
        """Every coefficient is the same +-1 (printed ``^[n]``, ``v[n]``)."""
        return not self.coefs or (abs(self.coefs[0]) == 1 and len(set(self.coefs)) == 1)

    def sort_key(self) -> tuple:
        """CGSuite's order of uptimals: number, coefficients (a prefix first), nimber."""
        return self.number, self.coefs, self.nim

    def negated(self) -> "Expansion":
        return Expansion(-self.number, self.nim, tuple(-c for c in self.coefs))

    def text(self) -> str:
        """CGSuite's plain text for ``UptimalExpansion``: ``0.0``, ``*.1-``, ``73/16*8.9-``."""
        out = []
        if self.nim == 0 or self.number != 0:
            out.append(_number_text(self.number))
        if self.nim:
            out.append("*" if self.nim == 1 else f"*{self.nim}")
        out.append(".")
        if not self.coefs:
            out.append("0")
        for c in self.coefs:
            d = abs(c)
            out.append(str(d) if d < 10 else chr(d + 55) if d < 36 else f"({d})")
            if c < 0:
                out.append("-")
        return "".join(out)


def _number_text(x: Number) -> str:
    return f"{x.numerator}/{x.denominator}" if isinstance(x, Fraction) else str(x)


def _trimmed(coefs: list[int]) -> tuple[int, ...]:
    while coefs and coefs[-1] == 0:
        coefs.pop()
    return tuple(coefs)


def _increment(e: Expansion, to_length: int) -> Expansion:
    """The coefficients raised by one up to ``to_length`` and the nimber toggled."""
    n = max(to_length, len(e.coefs))
    coefs = [(e.coefs[i] if i < len(e.coefs) else 0) + (1 if i < to_length else 0) for i in range(n)]
    return Expansion(e.number, e.nim ^ 1, _trimmed(coefs))


def expansion(g: int) -> Expansion | None:
    """The uptimal expansion of the form ``g``, or None when it is not an uptimal.

    CGSuite prints an uptimal whose expansion is a single ``+-1`` (``^<n>``,
    ``v<n>``) or a run of equal ``+-1`` coefficients (``^[n]``, ``v[n]``)
    compactly, and orders uptimals among options by their expansions; both need
    to know whether a canonical form is an uptimal, which is what
    ``expansion(g)`` answers. The recognition follows CGSuite's
    ``CanonicalShortGameOps.uptimalExpansion``: an uptimal with a positive last
    coefficient has one Right option, whose expansion is its own with every
    coefficient lowered by one and the nimber toggled, so the Right option's
    expansion gives at most two candidates. Where CGSuite then checks the Left
    options against a list of cases, a candidate here is accepted only if
    building it gives back the form itself, which is a check by the definition.
    """
    p = T._nus[g]
    if p is not None:
        x, ups, nim = p
        return Expansion(x, nim, (ups,) if ups else ())
    r = _expansions.get(g)
    if r is None:
        r = _positive(g)
        if r is None:
            e = _positive(neg(g))
            r = e.negated() if e is not None else None
        _expansions.put(g, r if r is not None else False)
    return r or None


def _positive(g: int) -> Expansion | None:
    """The expansion of ``g`` if it is an uptimal whose last coefficient is positive."""
    lo, ro = T.options(g)
    if len(ro) != 1:
        return None
    r = expansion(ro[0])
    if r is None:
        return None
    longest = 0
    for x in lo:
        e = expansion(x)
        if e is None or e.number != r.number:
            return None
        longest = max(longest, len(e.coefs))
    candidates = []
    if r.coefs and r.coefs[-1] > 0:
        candidates.append(_increment(r, len(r.coefs)))
    candidates.append(_increment(r, max(len(r.coefs), longest) + 1))
    for c in candidates:
        if len(c.coefs) > 1 and build(c) == g:
            return c
    return None


def build(e: Expansion) -> int:
    """Id of the uptimal with this expansion (CGSuite's ``constructUptimal``)."""
    g = T.nus_id(e.number, e.coefs[0] if e.coefs else 0, e.nim)
    for n, c in enumerate(e.coefs[1:], start=2):
        if c:
            power = up_power(n)
            g = add(g, _multiple(power if c > 0 else neg(power), abs(c)))
    return g


def _multiple(g: int, n: int) -> int:
    """``n`` copies of ``g`` by doubling (n >= 1)."""
    total, doubled = None, g
    while n:
        if n & 1:
            total = doubled if total is None else add(total, doubled)
        n >>= 1
        if n:
            doubled = add(doubled, doubled)
    return total  # type: ignore[return-value]


def up_power(n: int) -> int:
    """``^<n>`` (n >= 1): ``^.Pow(n)``."""
    r = _powers.get(("pow", n))
    if r is None:
        r = _powers.put(("pow", n), power(T.nus_id(0, 1, 0), n))
    return r


def up_power_to(n: int) -> int:
    """``^[n]`` (n >= 0): ``^.PowTo(n)``, which is ``^ + ^<2> + ... + ^<n>``."""
    r = _powers.get(("to", n))
    if r is None:
        r = _powers.put(("to", n), power_to(T.nus_id(0, 1, 0), n))
    return r


def _base_option(g: int) -> int:
    """``H`` of a form ``{0|H}``; ValueError for any other form."""
    lo, ro = T.options(g)
    if lo != (T.ZERO,) or len(ro) != 1:
        raise ValueError("Pow needs a base of the form {0|H}")
    return ro[0]


def power(g: int, n: int) -> int:
    """CGSuite's ``G.Pow(n)`` for ``G = {0|H}`` and an integer n >= 1: ``{0 | H - G.PowTo(n-1)}``."""
    h = _base_option(g)
    if n < 1:
        raise ValueError("Pow needs an integer exponent of at least 1")
    return g if n == 1 else construct([T.ZERO], [add(h, neg(power_to(g, n - 1)))])


def power_to(g: int, n: int) -> int:
    """CGSuite's ``G.PowTo(n)`` for ``G = {0|H}`` and an integer n >= 0: ``{G.PowTo(n-1) | H}``."""
    h = _base_option(g)
    if n < 0:
        raise ValueError("PowTo needs an integer exponent of at least 0")
    r = T.ZERO
    for _ in range(n):
        r = construct([r], [h])
    return r
