"""A calculator over CGSuite's expressions: sums, switches, ordinal sums and methods.

>>> evaluate("{2|-1/2} + ^")["value"]
'{2^|-1/2^}'
>>> evaluate("{3||2*|1*}.Thermograph")
{'value': 'Thermograph(9/4,[3/4],[0,-1],9/4,[3/4,1/2,0],[0,1,0,1])'}
"""

from __future__ import annotations

from . import _table as T
from ._compare import outcome
from ._methods import text_of
from ._parse import parse_value
from ._print import number_text, to_text
from ._thermo import mean, stops, temperature

_OUTCOME_WORDS = {
    "L": "Left wins",
    "R": "Right wins",
    "N": "the player to move wins",
    "P": "the player not to move wins",
}


def evaluate(expr: str) -> dict[str, str]:
    """Evaluate an expression such as ``"{2|1/2||0} + ^ - *"`` or ``"(+-1).Cool(1/2)"``.

    When the expression is a game, returns the strings ``value`` (canonical
    form), ``outcome`` (``L``, ``R``, ``N`` or ``P``), ``left_stop``,
    ``right_stop``, ``mean`` and ``temperature`` (numbers written as CGSuite
    writes them, e.g. ``3/4``). Anything else (a thermograph, a set of games
    such as ``G.Incentives``, a truth value) gives ``value`` alone, in
    CGSuite's text. Raises ``CGTError`` (a ValueError; ``CGTSyntaxError`` for
    malformed text, saying at which column) with a one-line message.
    """
    v = parse_value(expr)
    if not isinstance(v, int):
        return {"value": text_of(v)}
    left_stop, right_stop = stops(v)
    return {
        "value": to_text(v),
        "outcome": outcome(v),
        "left_stop": number_text(left_stop),
        "right_stop": number_text(right_stop),
        "mean": number_text(T.normalize_number(mean(v))),
        "temperature": number_text(T.normalize_number(temperature(v))),
    }


def format_report(result: dict[str, str]) -> str:
    """A few aligned lines for a person reading ``evaluate``'s result."""
    rows = [("value", result["value"])]
    if "outcome" in result:
        outcome_text = f"{result['outcome']} ({_OUTCOME_WORDS.get(result['outcome'], '?')})"
        rows += [
            ("outcome", outcome_text),
            ("stops", f"left {result['left_stop']}, right {result['right_stop']}"),
            ("mean", result["mean"]),
            ("temperature", result["temperature"]),
        ]
    return "\n".join(f"{name:<12}{text}" for name, text in rows)
