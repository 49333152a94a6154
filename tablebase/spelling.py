"""How the program spells things: counts in messages, exact figures in text.

``counted(1, "file")`` is "1 file", ``counted(1001, "level")`` "1,001 levels";
``shown`` is a value (a game's position) cut to fit a one-line message;
``as_text`` spells exact fractions (a partizan position's mean, temperature
and stops) the way ``tablebase.cgt`` writes them, "3/4", wherever a result
leaves Python as JSON or a printed table, and for the JSON API integers
beyond 2^53 - 1 as digits.
"""

from __future__ import annotations

import sys
from typing import Any


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1 (nouns here take an -s)."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def shown(value: Any, width: int = 60) -> str:
    """A value's repr, cut to ``width`` characters: a position in a one-line message."""
    try:
        text = repr(value)
    except Exception:  # a position's own __repr__ is the game's code too
        text = f"<{type(value).__name__}>"
    return text if len(text) <= width else text[: width - 3] + "..."


#: the largest integer every JSON reader holds exactly: JavaScript's numbers are doubles
JSON_SAFE = 2**53 - 1


def as_text(value: Any, wide_ints: bool = False) -> Any:
    """The value with every Fraction in it (through dicts and lists) spelt as text: "3/4", "-2"; with
    ``wide_ints``, every integer beyond ``JSON_SAFE`` too (a Domineering key, a value id), so that JSON
    carries it to a JavaScript reader without rounding it."""
    if _is_fraction(value) or (wide_ints and isinstance(value, int) and not -JSON_SAFE <= value <= JSON_SAFE):
        return str(value)
    if isinstance(value, dict):
        return {k: as_text(v, wide_ints) for k, v in value.items()}
    if isinstance(value, list):
        return [as_text(v, wide_ints) for v in value]
    return value


def _is_fraction(value: Any) -> bool:
    # No Fraction exists before its module is imported, and a lookup of an impartial table never imports it.
    fractions = sys.modules.get("fractions")
    return fractions is not None and isinstance(value, fractions.Fraction)
