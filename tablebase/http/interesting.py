"""Positions worth a look in a table, each found by one DuckDB query over the columns it needs.

Like queries/*.sql, each entry says which columns it needs, so a table shows
the entries its rows can answer whatever its kind.
"""

from __future__ import annotations

from typing import NamedTuple


class Interesting(NamedTuple):
    label: str
    needs: frozenset[str]
    query: str  # {table} is the table's quoted name; it selects position and a figure to show
    random: bool = False  # a new pick at each visit, so not kept


INTERESTING = (
    Interesting("the longest win", frozenset({"outcome", "remoteness"}),
                "SELECT position, remoteness AS figure FROM {table} WHERE outcome = 'N' "
                "ORDER BY remoteness DESC, key LIMIT 1"),
    Interesting("the longest loss", frozenset({"outcome", "remoteness"}),
                "SELECT position, remoteness AS figure FROM {table} WHERE outcome = 'P' AND remoteness > 0 "
                "ORDER BY remoteness DESC, key LIMIT 1"),
    Interesting("the largest Grundy value", frozenset({"grundy"}),
                "SELECT position, grundy AS figure FROM {table} ORDER BY grundy DESC, key LIMIT 1"),
    Interesting("the hottest position", frozenset({"temperature"}),
                "SELECT position, temperature AS figure FROM {table} ORDER BY temperature DESC, key LIMIT 1"),
    Interesting("the longest game", frozenset({"plies"}),
                "SELECT position, plies AS figure FROM {table} ORDER BY plies DESC, key LIMIT 1"),
    Interesting("the highest score", frozenset({"score"}),
                "SELECT position, score AS figure FROM {table} ORDER BY score DESC, key LIMIT 1"),
    Interesting("a random P-position", frozenset({"outcome"}),
                "SELECT * FROM (SELECT position, level AS figure FROM {table} WHERE outcome = 'P') "
                "USING SAMPLE reservoir(1 ROWS)",
                random=True),
)


def applicable(columns: set[str]) -> list[Interesting]:
    return [i for i in INTERESTING if i.needs <= columns]
