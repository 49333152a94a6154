"""An algebra of short partizan games, compatible with CGSuite's notation.

Values are canonical forms interned once each under an integer id, so equal
values are identical. Numbers are exact dyadic rationals (int / Fraction);
numbers, nimbers and number + ups + nimber are kept in closed form.

>>> from tablebase.cgt import parse, up, nimber
>>> str(up(1) + nimber(1))
'^*'
>>> g = parse("{2|-1/2}")
>>> g.mean, g.temperature, g.outcome
(Fraction(3, 4), Fraction(5, 4), 'N')

See docs/cgt.md for the notation, the API and the calculator.
"""

from ._parse import CGTSyntaxError
from .calculator import evaluate, format_report
from .game import (
    STAR,
    ZERO,
    Game,
    dyadic,
    format_number,
    from_option_ids,
    from_options,
    integer,
    nimber,
    number_up_star,
    parse,
    sum_ids,
    up,
)
from .stable import stable_id, value_row

__all__ = [
    "CGTSyntaxError",
    "Game",
    "STAR",
    "ZERO",
    "dyadic",
    "evaluate",
    "format_number",
    "format_report",
    "from_option_ids",
    "from_options",
    "integer",
    "nimber",
    "number_up_star",
    "parse",
    "stable_id",
    "sum_ids",
    "up",
    "value_row",
]
