"""The same API misused: mypy must refuse each line marked here."""

from __future__ import annotations

import tablebase

with tablebase.open("tb") as tb:
    outcome: int = tb.probe("t", "1 2")["outcome"]  # a str, not an int
    tb.lookup("t", 3.5)  # a position is text or whole numbers, not a float
    moves: list[int] = tb.lookup("t", "1 2")["moves"]  # moves are Move dicts
    tb.probe("t", "1 2")["no_such_figure"]  # not a figure
