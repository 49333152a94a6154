"""How messages say counts: ``counted(1, "file")`` is "1 file", ``counted(1001, "level")`` "1,001 levels"."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1 (nouns here take an -s)."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
