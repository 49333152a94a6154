"""CGSuite's methods on games, by name: ``G.Cool(1)``, ``G.Freeze``, ``G Heat 2``.

The calculator reads ``G.Name`` and ``G.Name(arguments)`` (and ``G Name x``
for a method of one argument, as CGSuite does) and looks the name up here.
A method gives a game (as an id), a set of games, or something printed only
(a thermograph, a truth value, an outcome class, an uptimal expansion).
Names and spellings are CGSuite's; so are the results' texts.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, NamedTuple, Union

from . import _table as T
from ._arith import neg
from ._atomic import atomic_weight, is_all_small, is_atomic, is_infinitesimal, reduced
from ._build import construct
from ._compare import outcome
from ._errors import CGTError
from ._heat import cool, freeze, heat, incentives, norton, ordinal_sum, overheat
from ._print import set_text, to_text
from ._thermo import birthday, mean, stops, temperature, thermograph
from ._uptimal import expansion, power, power_to
from .thermograph import Thermograph


class GameSet(NamedTuple):
    """A set of games, ``{1,1*}``: what ``+-`` turns into a switch with several options."""

    ids: tuple[int, ...]

    def text(self) -> str:
        return set_text(self.ids)


class Shown(NamedTuple):
    """A result that is not a game, with its CGSuite text."""

    kind: str
    body: str

    def text(self) -> str:
        return self.body


class Number(int):
    """A number a method gives (a stop, the mean, the temperature, a birthday), as the game id of that number:
    a game like any other in what follows, but the answer of an expression it ends is the number alone."""


Value = Union[int, GameSet, Shown]


def kind_of(v: Value) -> str:
    return "game" if isinstance(v, int) else "set of games" if isinstance(v, GameSet) else v.kind


def text_of(v: Value) -> str:
    return to_text(v) if isinstance(v, int) else v.text()


def game(v: Value, what: str) -> int:
    """``v`` as a game id; CGTError naming ``what`` otherwise."""
    if not isinstance(v, int):
        raise CGTError(f"{what} needs a game, not a {kind_of(v)}")
    return v


def _number(v: Value, what: str) -> Fraction:
    x = T.number_value(game(v, what))
    if x is None:
        raise CGTError(f"{what} needs a number, not {to_text(v)}")  # type: ignore[arg-type]
    return Fraction(x)


def _integer(v: Value, what: str) -> int:
    x = _number(v, what)
    if x.denominator != 1:
        raise CGTError(f"{what} needs an integer, not {x}")
    return int(x)


def _listed(ids) -> Shown:
    return Shown("set of games", set_text(ids))


def truth(b: bool) -> Shown:
    """A truth value, from a method such as ``IsNumber`` or a comparison, printed as CGSuite prints it."""
    return Shown("boolean", "true" if b else "false")


def _atomic_weight(g: int) -> int:
    try:
        return atomic_weight(g)
    except CGTError:
        raise CGTError(f"That game is not atomic: {to_text(g)}") from None


def _expansion(g: int) -> Shown:
    e = expansion(g)
    if e is None:
        raise CGTError(f"That game is not an uptimal: {to_text(g)}")
    return Shown("uptimal expansion", e.text())


def _thermograph(g: int) -> Shown:
    return Shown("thermograph", str(Thermograph(*thermograph(g))))


def _pow(g: int, n: int, to: bool) -> int:
    try:
        return power_to(g, n) if to else power(g, n)
    except ValueError as e:
        raise CGTError(str(e)) from None


# name -> (argument kinds, function of the receiver's id and the arguments)
METHODS: dict[str, tuple[tuple[str, ...], Callable[..., Value]]] = {
    "AtomicWeight": ((), _atomic_weight),
    "Birthday": ((), lambda g: Number(T.number_id(birthday(g)))),
    "CanonicalForm": ((), lambda g: g),
    "Cool": (("number",), lambda g, t: cool(g, t, T.number_id(t))),
    "Freeze": ((), freeze),
    "Heat": (("game",), heat),
    "Incentives": ((), lambda g: _listed(incentives(g))),
    "IsAllSmall": ((), lambda g: truth(is_all_small(g))),
    "IsAtomic": ((), lambda g: truth(is_atomic(g))),
    "IsInfinitesimal": ((), lambda g: truth(is_infinitesimal(g))),
    "IsInteger": ((), lambda g: truth(T.is_number(g) and isinstance(T.number_value(g), int))),
    "IsNimber": ((), lambda g: truth(T._nus[g] is not None and T._nus[g][0] == 0 and T._nus[g][1] == 0)),
    "IsNumber": ((), lambda g: truth(T.is_number(g))),
    "IsUptimal": ((), lambda g: truth(expansion(g) is not None)),
    "LeftIncentives": ((), lambda g: _listed(incentives(g, True, False))),
    "LeftOptions": ((), lambda g: _listed(T.options(g)[0])),
    "LeftStop": ((), lambda g: Number(T.number_id(stops(g)[0]))),
    "Mean": ((), lambda g: Number(T.number_id(mean(g)))),
    "Miny": ((), lambda g: construct([construct([g], [T.ZERO])], [T.ZERO])),
    "NortonProduct": (("game",), norton),
    "OrdinalSum": (("game",), ordinal_sum),
    "OutcomeClass": ((), lambda g: Shown("outcome class", outcome(g))),
    "Overheat": (("game", "game"), overheat),
    "Pow": (("integer",), lambda g, n: _pow(g, n, False)),
    "PowTo": (("integer",), lambda g, n: _pow(g, n, True)),
    "ReducedCanonicalForm": ((), reduced),
    "RightIncentives": ((), lambda g: _listed(incentives(g, False, True))),
    "RightOptions": ((), lambda g: _listed(T.options(g)[1])),
    "RightStop": ((), lambda g: Number(T.number_id(stops(g)[1]))),
    "Temperature": ((), lambda g: Number(T.number_id(temperature(g)))),
    "Thermograph": ((), _thermograph),
    "Tiny": ((), lambda g: construct([T.ZERO], [construct([T.ZERO], [neg(g)])])),
    "UptimalExpansion": ((), _expansion),
}

_CONVERT = {"game": game, "number": _number, "integer": _integer}


def usage(name: str) -> str:
    """How a method is written after a game: ``G.Heat(t)``, ``G.Mean``."""
    kinds = METHODS[name][0]
    letters = ("t",) if len(kinds) == 1 else ("s", "t")  # CGSuite's letters: G.Heat(t), G.Overheat(s, t)
    arguments = ", ".join("n" if k == "integer" else letter for k, letter in zip(kinds, letters))
    return f"G.{name}" + (f"({arguments})" if kinds else "")


def method_named(word: str) -> str | None:
    """The method a word names, whatever its case (``heat``: Heat), or None."""
    return next((name for name in METHODS if name.lower() == word.lower()), None)


def call(name: str, receiver: Value, arguments: list[Value]) -> Value:
    """``receiver.name(arguments)``; CGTError for a wrong receiver, argument or count."""
    kinds, function = METHODS[name]
    if len(arguments) != len(kinds):
        wanted = f"{len(kinds)} argument{'s' if len(kinds) != 1 else ''}" if kinds else "no arguments"
        raise CGTError(f"{name} takes {wanted}, not {len(arguments)}")
    g = int(game(receiver, name))  # a method's number, taken as a game: what it gives is a game again
    return function(g, *(_CONVERT[k](a, name) for k, a in zip(kinds, arguments)))
