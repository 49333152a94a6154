"""An algebra of short partizan games, compatible with CGSuite's notation (docs/cgt.md: the API, the calculator).

Values are canonical forms interned once each under an integer id, so equal values are identical; numbers
are exact dyadic rationals, and numbers, nimbers and number + ups + nimber are kept in closed form.

>>> from tablebase.cgt import parse, up, nimber
>>> g = parse("{2|-1/2}")
>>> g.mean, g.temperature, g.outcome, str(g.cool(1)), str(g.freeze), str(up(1) + nimber(1)), str(parse("{0|v*}"))
(Fraction(3, 4), Fraction(5, 4), 'N', '{1|1/2}', '3/4*', '^*', '^<2>')
"""

from ._cache import cache_info, clear_caches
from ._errors import CGTError, CGTSyntaxError
from ._table import size as forms_held
from .calculator import evaluate, format_report
from .game import (
    STAR,
    ZERO,
    Value,
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
from .thermograph import Thermograph, Trajectory

__all__ = [
    "CGTError",
    "CGTSyntaxError",
    "Value",
    "STAR",
    "Thermograph",
    "Trajectory",
    "ZERO",
    "cache_info",
    "clear_caches",
    "dyadic",
    "evaluate",
    "format_number",
    "format_report",
    "forms_held",
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
