"""``Value``: a light handle on a canonical form, and the constructors.

A ``Value`` holds only the integer id of its canonical form, so equal values
are equal handles and hashing is cheap. Code that builds millions of forms
(tablebase solvers) should stay on ids: ``from_option_ids`` and ``sum_ids``
take and return plain ints, and ``Value(id)`` / ``game.id`` convert.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Sequence, Union

from . import _table as T
from ._arith import add, neg, sum_all
from ._atomic import atomic_weight, is_all_small, is_atomic, is_infinitesimal, reduced
from ._build import construct
from ._compare import compare, leq, outcome
from ._errors import CGTError
from ._heat import cool, freeze, heat, incentives, norton, ordinal_sum, overheat
from ._parse import parse_id
from ._print import number_text, sorted_ids, sorted_options, to_text
from ._thermo import birthday, mean, stops, temperature, thermograph
from ._uptimal import expansion, power, power_to
from .thermograph import Thermograph

Number = Union[int, Fraction]


class Value:
    """A short partizan game in canonical form (immutable, hashable)."""

    __slots__ = ("id",)

    def __init__(self, game_id: int) -> None:
        """Wrap the process-local id of an interned canonical form."""
        if not 0 <= game_id < T.size():
            raise ValueError(f"no canonical form has id {game_id}")
        self.id = game_id

    # -- algebra ---------------------------------------------------------------
    def __add__(self, other: "Value") -> "Value":
        return Value(add(self.id, _coerce(other).id))

    __radd__ = __add__

    def __sub__(self, other: "Value") -> "Value":
        return Value(add(self.id, neg(_coerce(other).id)))

    def __rsub__(self, other: "Value") -> "Value":
        return Value(add(_coerce(other).id, neg(self.id)))

    def __neg__(self) -> "Value":
        return Value(neg(self.id))

    def __pos__(self) -> "Value":
        return self

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Value):
            return self.id == other.id
        if isinstance(other, (int, Fraction)):
            return self.id == _coerce(other).id
        return NotImplemented

    def __hash__(self) -> int:
        # A number equals the int/Fraction it stands for, so it must hash alike.
        value = T.number_value(self.id)
        return hash(value) if value is not None else hash(("Value", self.id))

    def __le__(self, other: "Value") -> bool:
        return leq(self.id, _coerce(other).id)

    def __ge__(self, other: "Value") -> bool:
        return leq(_coerce(other).id, self.id)

    def __lt__(self, other: "Value") -> bool:
        return compare(self.id, _coerce(other).id) == "<"

    def __gt__(self, other: "Value") -> bool:
        return compare(self.id, _coerce(other).id) == ">"

    def compare(self, other: "Value") -> str:
        """``'='``, ``'<'``, ``'>'`` or ``'||'`` (confused, incomparable)."""
        return compare(self.id, _coerce(other).id)

    def is_confused_with(self, other: "Value") -> bool:
        """Whether ``self || other``: neither ``<=`` nor ``>=`` holds."""
        return self.compare(other) == "||"

    # -- structure -----------------------------------------------------------
    @property
    def left_options(self) -> list["Value"]:
        """Left options of the canonical form, in CGSuite's order."""
        return [Value(g) for g in sorted_options(self.id)[0]]

    @property
    def right_options(self) -> list["Value"]:
        """Right options of the canonical form, in CGSuite's order."""
        return [Value(g) for g in sorted_options(self.id)[1]]

    @property
    def is_number(self) -> bool:
        return T.is_number(self.id)

    @property
    def number(self) -> Number | None:
        """The value as an int or Fraction when the game is a number, else None."""
        return T.number_value(self.id)

    @property
    def is_nimber(self) -> bool:
        p = T.nus_parts(self.id)
        return p is not None and p[0] == 0 and p[1] == 0

    @property
    def birthday(self) -> int:
        return birthday(self.id)

    # -- figures -------------------------------------------------------------
    @property
    def outcome(self) -> str:
        """``'L'``, ``'R'``, ``'N'`` (player to move wins) or ``'P'`` (the other wins)."""
        return outcome(self.id)

    @property
    def left_stop(self) -> Number:
        return stops(self.id)[0]

    @property
    def right_stop(self) -> Number:
        return stops(self.id)[1]

    @property
    def mean(self) -> Fraction:
        return mean(self.id)

    @property
    def temperature(self) -> Fraction:
        """Temperature from the thermograph (CGSuite: -1 for integers, -1/2^k for m/2^k)."""
        return temperature(self.id)

    # -- temperature theory (CGSuite's names are aliases, below) ------------------
    def cool(self, t: Union[int, Fraction, "Value"]) -> "Value":
        """``G_t``: G cooled by the number ``t > -1`` (CGTError otherwise)."""
        x = Fraction(_number(t))
        return Value(cool(self.id, x, T.number_id(x)))

    def heat(self, t: Union[int, Fraction, "Value"]) -> "Value":
        """G heated by the game ``t``: ``{heat(G^L) + t | heat(G^R) - t}``, numbers unchanged."""
        return Value(heat(self.id, _coerce(t).id))

    def overheat(self, s: Union[int, Fraction, "Value"], t: Union[int, Fraction, "Value"]) -> "Value":
        """G overheated from ``s`` to ``t``: an integer n becomes n copies of ``s``."""
        return Value(overheat(self.id, _coerce(s).id, _coerce(t).id))

    @property
    def freeze(self) -> "Value":
        """G cooled by its own temperature (infinitesimally close to a number)."""
        return Value(freeze(self.id))

    @property
    def thermograph(self) -> Thermograph:
        """The thermograph, printed as CGSuite prints it."""
        return Thermograph(*thermograph(self.id))

    @property
    def incentives(self) -> list["Value"]:
        """The undominated Left and Right incentives (``G^L - G``, ``G - G^R``), each once."""
        return [Value(x) for x in sorted_ids(incentives(self.id))]

    @property
    def left_incentives(self) -> list["Value"]:
        return [Value(x) for x in sorted_ids(incentives(self.id, True, False))]

    @property
    def right_incentives(self) -> list["Value"]:
        return [Value(x) for x in sorted_ids(incentives(self.id, False, True))]

    # -- infinitesimals --------------------------------------------------------------
    @property
    def is_infinitesimal(self) -> bool:
        """Both stops are 0."""
        return is_infinitesimal(self.id)

    @property
    def is_all_small(self) -> bool:
        return is_all_small(self.id)

    @property
    def atomic_weight(self) -> "Value":
        """The atomic weight (CGTError when G is not atomic, e.g. not infinitesimal)."""
        return Value(atomic_weight(self.id))

    @property
    def is_atomic(self) -> bool:
        return is_atomic(self.id)

    @property
    def reduced_canonical_form(self) -> "Value":
        """The simplest game infinitesimally close to G."""
        return Value(reduced(self.id))

    @property
    def uptimal_expansion(self) -> str | None:
        """CGSuite's text of the uptimal expansion (``*.12`` for ``{0|^<2>}``), None if not an uptimal."""
        e = expansion(self.id)
        return None if e is None else e.text()

    # -- other products -------------------------------------------------------------
    def ordinal_sum(self, other: Union[int, Fraction, "Value"]) -> "Value":
        """The ordinal sum ``G:H`` (CGSuite's ``G:H``): G's canonical form is the base."""
        return Value(ordinal_sum(self.id, _coerce(other).id))

    def norton_product(self, unit: Union[int, Fraction, "Value"]) -> "Value":
        """The Norton product ``G.U``."""
        return Value(norton(self.id, _coerce(unit).id))

    def pow(self, n: int) -> "Value":
        """CGSuite's ``G.Pow(n)`` for ``G = {0|H}``: ``^.pow(2)`` is ``^<2>``."""
        return Value(_powered(power, self.id, n))

    def pow_to(self, n: int) -> "Value":
        """CGSuite's ``G.PowTo(n)`` for ``G = {0|H}``: ``^.pow_to(2)`` is ``^[2]``."""
        return Value(_powered(power_to, self.id, n))

    # CGSuite's spellings, so that its examples read the same in Python.
    Cool = cool
    Heat = heat
    Overheat = overheat
    OrdinalSum = ordinal_sum
    NortonProduct = norton_product
    Pow = pow
    PowTo = pow_to
    Freeze = freeze
    Thermograph = thermograph
    Incentives = incentives
    LeftIncentives = left_incentives
    RightIncentives = right_incentives
    AtomicWeight = atomic_weight
    IsAtomic = is_atomic
    IsInfinitesimal = is_infinitesimal
    IsAllSmall = is_all_small
    ReducedCanonicalForm = reduced_canonical_form
    LeftStop = property(lambda self: self.left_stop)
    RightStop = property(lambda self: self.right_stop)
    Mean = property(lambda self: self.mean)
    Temperature = property(lambda self: self.temperature)
    Birthday = property(lambda self: self.birthday)

    def __str__(self) -> str:
        return to_text(self.id)

    def __repr__(self) -> str:
        return f"Value('{to_text(self.id)}')"


def _number(x: Union[Value, int, Fraction]) -> Number:
    if isinstance(x, Value):
        if x.number is None:
            raise CGTError(f"a temperature needs to be a number, not {x}")
        return x.number
    return _coerce(x).number  # type: ignore[return-value]


def _powered(function, g: int, n: int) -> int:
    try:
        return function(g, int(n))
    except ValueError as e:
        raise CGTError(str(e)) from None


def _coerce(x: Union[Value, int, Fraction]) -> Value:
    if isinstance(x, Value):
        return x
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        return dyadic(x)
    raise TypeError(f"cannot treat {x!r} as a game")


def integer(n: int) -> Value:
    """The integer ``n``."""
    return Value(T.number_id(int(n)))


def dyadic(x: Union[int, Fraction, str]) -> Value:
    """The number ``x`` (a dyadic rational: its denominator a power of 2)."""
    return Value(T.number_id(Fraction(x)))


def nimber(n: int) -> Value:
    """The nimber ``*n``."""
    if n < 0:
        raise ValueError("a nimber needs n >= 0")
    return Value(T.nus_id(0, 0, int(n)))


def up(n: int = 1) -> Value:
    """``n`` ups (``^`` for 1, ``^^`` for 2, downs when ``n < 0``)."""
    return Value(T.nus_id(0, int(n), 0))


def number_up_star(x: Union[int, Fraction], ups: int = 0, nim: int = 0) -> Value:
    """``x + ups.^ + *nim`` in closed form."""
    return Value(T.nus_id(T.normalize_number(Fraction(x)), int(ups), int(nim)))


def from_options(lefts: Iterable[Value], rights: Iterable[Value]) -> Value:
    """The canonical form of ``{lefts | rights}``."""
    return Value(construct([_coerce(g).id for g in lefts], [_coerce(g).id for g in rights]))


def from_option_ids(lefts: Sequence[int], rights: Sequence[int]) -> int:
    """Id-level ``from_options``: option ids in, canonical id out (the fast path)."""
    return construct(lefts, rights)


# Id of the sum of the forms with these ids (0 for none): the fast path for solvers.
sum_ids = sum_all


def parse(text: str) -> Value:
    """Read a game (or a sum/difference of games) in CGSuite's notation.

    Raises ``CGTSyntaxError`` (a ValueError) with a one-line message.
    """
    return Value(parse_id(text))


def format_number(x: Number) -> str:
    """CGSuite's text for a dyadic rational: ``3``, ``-3/8``."""
    return number_text(T.normalize_number(x))


ZERO = Value(T.ZERO)
STAR = Value(T.STAR)
