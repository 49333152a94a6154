"""Printing canonical forms the way CGSuite prints them in plain text.

Options are listed in CGSuite's deterministic order (``sorted_options``), and a
form is written in the most compact of CGSuite's ways that fits it (``to_text``).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cmp_to_key

from . import _table as T
from ._arith import add, neg
from ._cache import cache
from ._thermo import mean
from ._uptimal import Expansion, expansion

MAX_SLASHES = 4

_sorted_cache = cache("sorted options", 1 << 16)
_text_cache = cache("text", 1 << 14)


def number_text(x) -> str:
    """``5``, ``-3/8``: CGSuite's way of writing a dyadic rational."""
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}"
    return str(x)


def _category(g: int) -> int:
    p = T.nus_parts(g)
    if p is None:
        return 2 if expansion(g) is not None else 3
    if p[1] == 0 and p[2] == 0:
        return 0
    if p[0] == 0 and p[1] == 0:
        return 1
    return 2


def _cmp(g: int, h: int) -> int:
    if g == h:
        return 0
    cg, ch = _category(g), _category(h)
    if cg != ch:
        return -1 if cg < ch else 1
    if cg < 3:
        a = expansion(g).sort_key()  # type: ignore[union-attr]
        b = expansion(h).sort_key()  # type: ignore[union-attr]
        return -1 if a < b else (1 if a > b else 0)
    lg, rg = sorted_options(g)
    lh, rh = sorted_options(h)
    return _cmp_lists(lg, lh) or _cmp_lists(rg, rh)


def _cmp_lists(a: list[int], b: list[int]) -> int:
    for x, y in zip(a, b):
        c = _cmp(x, y)
        if c:
            return c
    return (len(a) > len(b)) - (len(a) < len(b))


_KEY = cmp_to_key(_cmp)


def sorted_options(g: int) -> tuple[list[int], list[int]]:
    """Left and Right options of ``g`` in CGSuite's order: numbers (by value), then nimbers, then other
    uptimals (by their expansions: number part, coefficients, nimber), then the rest (compared by their
    sorted Left options, then their sorted Right options)."""
    r = _sorted_cache.get(g)
    if r is None:
        lo, ro = T.options(g)
        r = _sorted_cache.put(g, (sorted(lo, key=_KEY), sorted(ro, key=_KEY)))
    return r


def _nus_text(x, ups: int, nim: int, force_parens: bool) -> str:
    out = []
    if x != 0 or (ups == 0 and nim == 0):
        out.append(number_text(x))
    if ups:
        out.append(("^" if ups > 0 else "v") * (2 if abs(ups) == 2 else 1))
        if abs(ups) > 2:
            out.append(str(abs(ups)))
    if nim:
        out.append("*" if nim == 1 else f"*{nim}")
    text = "".join(out)
    is_simple = (ups == 0 and nim == 0) or (x == 0 and ups == 0) or (x == 0 and nim == 0)
    return f"({text})" if force_parens and not is_simple else text


def _uptimal_text(e: Expansion, force_parens: bool) -> str | None:
    """CGSuite's compact text of a longer uptimal (``^<3>``, ``1v[2]*``), or None for braces."""
    if not (e.is_unit or e.is_unit_sum):
        return None
    out = [number_text(e.number)] if e.number != 0 else []
    out.append("^" if e.coefs[-1] > 0 else "v")
    out.append(f"<{len(e.coefs)}>" if e.is_unit else f"[{len(e.coefs)}]")
    if e.nim:
        out.append("*" if e.nim == 1 else f"*{e.nim}")
    text = "".join(out)
    compact = e.number == 0 and e.nim == 0
    return f"({text})" if force_parens and not compact else text


def _tiny_parts(g: int, lo: list[int], ro: list[int]):
    """``('Tiny'|'Miny', translate, subscript)`` when ``g`` is a translated tiny/miny."""
    if len(lo) != 1 or len(ro) != 1:
        return None
    gl, gr = lo[0], ro[0]
    if T.is_number(gl):
        rl, rr = T.options(gr)
        if len(rl) == 1 and len(rr) == 1 and rl[0] == gl and mean(rr[0]) < mean(gl):
            return "Tiny", gl, add(gl, neg(rr[0]))
    if T.is_number(gr):
        ll, lr = T.options(gl)
        if len(ll) == 1 and len(lr) == 1 and lr[0] == gr and mean(ll[0]) > mean(gr):
            return "Miny", gr, add(ll[0], neg(gr))
    return None


def _write(g: int, force_braces: bool, force_parens: bool) -> tuple[str, int]:
    """Text of ``g`` and the number of slashes it shows unbraced (0 if braced)."""
    p = T.nus_parts(g)
    if p is not None:
        return _nus_text(*p, force_parens), 0
    e = expansion(g)
    if e is not None:
        text = _uptimal_text(e, force_parens)
        if text is not None:
            return text, 0
    lo, ro = sorted_options(g)
    if neg(g) == g:
        parts = [_write(x, True, len(lo) == 1)[0] for x in lo]
        body = parts[0] if len(lo) == 1 else "{" + ",".join(parts) + "}"
        return "+-" + body, 0
    tiny = _tiny_parts(g, lo, ro)
    if tiny is not None:
        name, translate, sub = tiny
        prefix = "" if translate == T.ZERO else _write(translate, False, False)[0]
        text = f"{prefix}{name}({_write(sub, True, False)[0]})"
        return (f"({text})" if force_parens else text), 0
    slashes = 0
    sides = []
    for opts in (lo, ro):
        texts = []
        for x in opts:
            t, s = _write(x, len(opts) > 1, False)
            texts.append(t)
            slashes = max(slashes, s + 1)
        sides.append(",".join(texts))
    body = sides[0] + "|" * slashes + sides[1]
    if force_braces or slashes == MAX_SLASHES:
        return "{" + body + "}", 0
    return body, slashes


def to_text(g: int) -> str:
    """CGSuite's plain-text form of ``g``.

    A form is written, in this order of preference, as

    * a number, nimber or number + ups + nimber: ``-3/8``, ``*3``, ``1/2^*``, ``v3*2``;
    * an uptimal whose expansion is one +-1 or a run of equal +-1s, after its
      number and before its nimber: ``^<2>``, ``v<3>*``, ``^[4]``, ``1/2v[2]*3``;
    * a switch ``{A|-A}``: ``+-1``, ``+-{3|2}``, ``+-{0,{2|0}}``;
    * a translated tiny or miny: ``2Tiny(2)``, ``Miny(1/2)``, ``Tiny({3|1})``;
    * braces, where a lone option that is itself written in braces drops its
      braces and adds a slash instead (``{2|1/2||0}``), up to four slashes.
    """
    r = _text_cache.get(g)
    if r is None:
        r = _text_cache.put(g, _write(g, True, False)[0])
    return r


def sorted_ids(ids) -> list[int]:
    """Forms in CGSuite's deterministic order (how it lists options and sets)."""
    return sorted(set(ids), key=_KEY)


def set_text(ids) -> str:
    """CGSuite's text of a set of games: ``{v,v*}``, ``{}``."""
    return "{" + ",".join(to_text(g) for g in sorted_ids(ids)) + "}"
