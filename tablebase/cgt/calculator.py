"""A calculator over CGSuite's notation: sums, differences and negations.

>>> evaluate("{2|-1/2} + ^")["value"]
'{2^|-1/2^}'
"""

from __future__ import annotations

from . import _table as T
from ._compare import outcome
from ._parse import parse_id
from ._print import number_text, to_text
from ._thermo import mean, stops, temperature

_OUTCOME_WORDS = {
    "L": "Left wins",
    "R": "Right wins",
    "N": "the player to move wins",
    "P": "the player not to move wins",
}


def evaluate(expr: str) -> dict[str, str]:
    """Evaluate an expression such as ``"{2|1/2||0} + ^ - *"``.

    Returns the strings ``value`` (canonical form), ``outcome`` (``L``, ``R``,
    ``N`` or ``P``), ``left_stop``, ``right_stop``, ``mean`` and
    ``temperature`` (numbers written as CGSuite writes them, e.g. ``3/4``).
    Raises ``CGTSyntaxError`` (a ValueError) with a one-line message saying
    where a malformed expression failed.
    """
    g = parse_id(expr)
    left_stop, right_stop = stops(g)
    return {
        "value": to_text(g),
        "outcome": outcome(g),
        "left_stop": number_text(left_stop),
        "right_stop": number_text(right_stop),
        "mean": number_text(T.normalize_number(mean(g))),
        "temperature": number_text(T.normalize_number(temperature(g))),
    }


def format_report(result: dict[str, str]) -> str:
    """A few aligned lines for a person reading ``evaluate``'s result."""
    outcome_text = f"{result['outcome']} ({_OUTCOME_WORDS.get(result['outcome'], '?')})"
    rows = [
        ("value", result["value"]),
        ("outcome", outcome_text),
        ("stops", f"left {result['left_stop']}, right {result['right_stop']}"),
        ("mean", result["mean"]),
        ("temperature", result["temperature"]),
    ]
    return "\n".join(f"{name:<12}{text}" for name, text in rows)
