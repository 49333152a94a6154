"""A calculator over CGSuite's expressions: sums, switches, ordinal sums, methods and comparisons.

>>> evaluate("{2|-1/2} + ^")["value"]
'{2^|-1/2^}'
>>> evaluate("{3||2*|1*}.Thermograph")
{'value': 'Thermograph(9/4,[3/4],[0,-1],9/4,[3/4,1/2,0],[0,1,0,1])'}
>>> evaluate("{1|0} < {2|0}"), evaluate("* > 0")
({'value': True}, {'value': False})
"""

from __future__ import annotations

from . import _table as T
from ._compare import outcome
from ._methods import Number, Shown, Value, text_of
from ._parse import parse_value
from ._print import number_text, to_text
from ._thermo import mean, stops, temperature

_OUTCOME_WORDS = {
    "L": "Left wins",
    "R": "Right wins",
    "N": "the player to move wins",
    "P": "the player not to move wins",
}


def evaluate(expr: str) -> dict[str, str | bool]:
    """Evaluate an expression such as ``"{2|1/2||0} + ^ - *"`` or ``"(+-1).Cool(1/2)"``.

    When the expression is a game, returns the strings ``value`` (canonical
    form), ``outcome`` (``L``, ``R``, ``N`` or ``P``), ``left_stop``,
    ``right_stop``, ``mean`` and ``temperature`` (numbers written as CGSuite
    writes them, e.g. ``3/4``). Anything else gives ``value`` alone: a truth
    value (a comparison such as ``G < H``, or a method such as ``G.IsNumber``)
    as a bool, so that JSON carries it as one; a thermograph or a set of
    games such as ``G.Incentives`` in CGSuite's text; a number a method gives
    (``G.Temperature``, ``G.Mean``, a stop, a birthday) as its text. Raises ``CGTError`` (a
    ValueError; ``CGTSyntaxError`` for malformed text, saying at which column)
    with a one-line message.
    """
    v = parse_value(expr)
    if not isinstance(v, int):
        return {"value": _plain(v)}
    if isinstance(v, Number):  # a method's number (G.Temperature): the number alone, not a game's figures
        return {"value": to_text(v)}
    left_stop, right_stop = stops(v)
    return {
        "value": to_text(v),
        "outcome": outcome(v),
        "left_stop": number_text(left_stop),
        "right_stop": number_text(right_stop),
        "mean": number_text(T.normalize_number(mean(v))),
        "temperature": number_text(T.normalize_number(temperature(v))),
    }


def _plain(v: Value) -> str | bool:
    """A result that is not a game: a truth value as a bool (so JSON writes a boolean), else CGSuite's text."""
    if isinstance(v, Shown) and v.kind == "boolean":
        return v.body == "true"
    return text_of(v)


def format_report(result: dict[str, str | bool]) -> str:
    """A few aligned lines for a person reading ``evaluate``'s result; a truth value as CGSuite prints it."""
    value = result["value"]
    rows = [("value", value if isinstance(value, str) else "true" if value else "false")]
    if "outcome" in result:
        outcome_text = f"{result['outcome']} ({_OUTCOME_WORDS.get(result['outcome'], '?')})"
        rows += [
            ("outcome", outcome_text),
            ("stops", f"left {result['left_stop']}, right {result['right_stop']}"),
            ("mean", result["mean"]),
            ("temperature", result["temperature"]),
        ]
    return "\n".join(f"{name:<12}{text}" for name, text in rows)
