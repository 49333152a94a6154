"""The intern table: every canonical form stored once under an integer id.

Ids are process-local indices into parallel lists. Number + up-multiple +
nimber values ("NUS", e.g. ``3/4``, ``*2``, ``^^*``) are kept in closed form as
``(number, ups, nim)``, their options built only when asked for (``nus_id``);
every other form as two tuples of option ids, each sorted ascending
(``register_general``). Entries are never removed, as in CGSuite's table of
games: solvers keep ids in their own dicts, and a reused id would silently
change a value. What is derived from forms is in bounded caches (``_cache``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Union

from ._cache import LOCK

Number = Union[int, Fraction]
Options = tuple[int, ...]

# Parallel lists indexed by id. ``_left[g] is None`` means "NUS whose options
# have not been built yet".
_left: list[Options | None] = []
_right: list[Options | None] = []
_nus: list[tuple[Number, int, int] | None] = []
# Left and right stops, known for every id from the moment it exists: they
# let comparisons answer many questions without looking at options. The
# ``_lfast``/``_rfast`` copies hold the same values as floats wherever a float
# is exact (every stop of a board game), because comparing two Fractions
# costs a microsecond and comparing floats almost nothing; Python compares
# a float with an int or Fraction exactly, so the rare inexact ones mix in.
_lstop: list[Number] = []
_rstop: list[Number] = []
_lfast: list[Union[float, Number]] = []
_rfast: list[Union[float, Number]] = []
_by_options: dict[tuple[Options, Options], int] = {}
_by_nus: dict[tuple[Number, int, int], int] = {}


def normalize_number(x: Number) -> Number:
    """Return ``x`` as an int when integral, else as a dyadic Fraction.

    Raises ValueError when the denominator is not a power of two: short games
    only contain dyadic rationals.
    """
    if isinstance(x, int):
        return int(x)
    x = Fraction(x)
    d = x.denominator
    if d == 1:
        return x.numerator
    if d & (d - 1):
        raise ValueError(f"{x} is not a dyadic rational")
    return x


def _fast(x: Number) -> Union[float, Number]:
    try:
        f = float(x)
    except OverflowError:
        return x
    return f if f == x else x


def nus_id(x: Number, ups: int = 0, nim: int = 0) -> int:
    """Id of ``x + ups.^ + *nim`` (``x`` an int or a dyadic Fraction)."""
    key = (x, ups, nim)
    g = _by_nus.get(key)
    if g is None:
        if nim < 0:
            raise ValueError("nim value must be non-negative")
        # Sums of Fractions may be integral: store ints so printing stays canonical.
        x = normalize_number(x)
        key = (x, ups, nim)
        with LOCK:  # the lists grow together, and the id is named only once every list has it
            g = _by_nus.get(key)
            if g is None:
                g = len(_nus)
                _left.append(None)
                _right.append(None)
                _nus.append(key)
                _lstop.append(x)
                _rstop.append(x)
                _lfast.append(_fast(x))
                _rfast.append(_lfast[-1])
                _by_nus[key] = g
    return g


def number_id(x: Number) -> int:
    """Id of the number ``x`` (int or dyadic Fraction)."""
    return nus_id(normalize_number(x), 0, 0)


def is_number(g: int) -> bool:
    t = _nus[g]
    return t is not None and t[1] == 0 and t[2] == 0


def number_value(g: int) -> Number | None:
    """The number ``g`` stands for, or None when ``g`` is not a number."""
    t = _nus[g]
    if t is not None and t[1] == 0 and t[2] == 0:
        return t[0]
    return None


def nus_parts(g: int) -> tuple[Number, int, int] | None:
    return _nus[g]


def _nus_options(x: Number, ups: int, nim: int) -> tuple[list[int], list[int]]:
    """Canonical options of ``x + ups.^ + *nim`` (as in Winning Ways)."""
    if ups == 0 and nim == 0:
        if x == 0:
            return [], []
        if isinstance(x, int):
            return ([nus_id(x - 1)], []) if x > 0 else ([], [nus_id(x + 1)])
        step = Fraction(1, x.denominator)
        return [nus_id(normalize_number(x - step))], [nus_id(normalize_number(x + step))]
    if ups == 0:
        opts = [nus_id(x, 0, j) for j in range(nim)]
        return opts, list(opts)
    base = nus_id(x)
    # ^* = {0,*|0} is the one value whose pattern differs from {x | x+(n-1)^ + *(k^1)}.
    if ups == 1 and nim == 1:
        return [base, nus_id(x, 0, 1)], [base]
    if ups == -1 and nim == 1:
        return [base], [base, nus_id(x, 0, 1)]
    if ups > 0:
        return [base], [nus_id(x, ups - 1, nim ^ 1)]
    return [nus_id(x, ups + 1, nim ^ 1)], [base]


def options(g: int) -> tuple[Options, Options]:
    """Left and right option ids of ``g`` (each sorted by id)."""
    lo = _left[g]
    if lo is None:
        x, ups, nim = _nus[g]  # type: ignore[misc]
        lefts, rights = _nus_options(x, ups, nim)
        lo = tuple(sorted(set(lefts)))
        ro = tuple(sorted(set(rights)))
        with LOCK:
            _right[g] = ro  # before the left ones: a thread that finds those set reads these
            _left[g] = lo
            _by_options.setdefault((lo, ro), g)
        return lo, ro
    return lo, _right[g]  # type: ignore[return-value]


def left_options(g: int) -> Options:
    lo = _left[g]
    return lo if lo is not None else options(g)[0]


def right_options(g: int) -> Options:
    ro = _right[g]
    return ro if ro is not None else options(g)[1]


def lookup(lo: Options, ro: Options) -> int | None:
    """Id registered for these sorted option tuples, if any."""
    return _by_options.get((lo, ro))


def register_general(lo: Options, ro: Options) -> int:
    """Store a new canonical, non-NUS form; the caller guarantees both. Another thread may have stored it
    meanwhile: its id then.

    The construction module never registers a NUS value here (it recognises NUS option patterns before
    interning). Threads share the table (a server answers requests side by side): an entry is added under
    ``_cache.LOCK``, every list grown before its id is named in ``_by_options`` or ``_by_nus``, so a thread
    that finds an id finds all of it; reading takes no lock."""
    with LOCK:
        g = _by_options.get((lo, ro))
        if g is not None:
            return g
        g = len(_nus)
        left_stop, right_stop = max(_rstop[x] for x in lo), min(_lstop[x] for x in ro)
        _left.append(lo)
        _right.append(ro)
        _nus.append(None)
        _lstop.append(left_stop)
        _rstop.append(right_stop)
        _lfast.append(_fast(left_stop))
        _rfast.append(_fast(right_stop))
        _by_options[(lo, ro)] = g
    return g


def size() -> int:
    """Number of ids handed out so far in this process."""
    return len(_nus)


ZERO = nus_id(0)
STAR = nus_id(0, 0, 1)
options(ZERO)
