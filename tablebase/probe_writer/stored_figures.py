"""The figures of a table's probe index: which of its rows' columns it stores, and which it derives.

A kind's builder says (``Builder.index_rules``) which figures follow from others and how
(docs/format.md): an impartial table's outcome from its Grundy value, its
remoteness halved, its best move found by the children. Every other column
but the key, the position and the level is stored as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tablebase.lazy import pa
from tablebase.probe.format import (
    AS_IS,
    BY_CHILDREN,
    DERIVED,
    HALVED,
    NO_FIELD,
    OUTCOME_OF_GRUNDY,
    STORED,
    Figure,
)
from tablebase.probe_writer.fields import figure_type

NOT_FIGURES = ("key", "position", "level")  # the key; what the game spells or counts from it
SEGMENT_KEYS = 1 << 18  # keys of a dense table's segment made from its values
FILE_SEGMENTS = 64  # segments of a file written from values in one process
#: a dense segment of rows is written where its keys fill at least this share of its range, else sparse
DENSE_SHARE = 0.8
#: what a kind may say of a figure: (source, rule, the figure the rule reads)
Rules = Mapping[str, tuple[int, int, str | None]]


def figures_of(schema: pa.Schema, rules: Rules) -> list[Figure]:
    """The index's figures: every column of the rows but the key, position and level, in the rows' order,
    stored as they are unless ``rules`` says otherwise."""
    names = [f.name for f in schema if f.name not in NOT_FIGURES]
    stored = [n for n in names if rules.get(n, (STORED, AS_IS, None))[0] == STORED]
    figures = []
    for f in schema:
        if f.name in NOT_FIGURES:
            continue
        source, rule, reads = rules.get(f.name, (STORED, AS_IS, None))
        figures.append(Figure(f.name, figure_type(f.type, f.name), source, rule,
                              pa.types.is_unsigned_integer(f.type), stored.index(f.name) if source == STORED
                              else NO_FIELD, names.index(reads) if reads else NO_FIELD))
    return figures


def impartial_rules(columns: Sequence[str]) -> dict[str, tuple[int, int, str | None]]:
    """An impartial table's rules: its outcome from the Grundy value; with remoteness, the remoteness
    halved and the best move by the children (an octal table, without remoteness, stores its best move)."""
    rules: dict[str, tuple[int, int, str | None]] = {}
    if "grundy" in columns and "outcome" in columns:
        rules["outcome"] = (DERIVED, OUTCOME_OF_GRUNDY, "grundy")
    if "grundy" in columns and "remoteness" in columns:
        rules["remoteness"] = (STORED, HALVED, "grundy")
        if "best_move" in columns:
            rules["best_move"] = (DERIVED, BY_CHILDREN, None)
    return rules

