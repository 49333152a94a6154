"""Lookups through the probe index against the old path (rows loaded from Parquet), DuckDB and the rules.

One small table of each kind: impartial dense (Chomp), impartial keyed (Wythoff), partizan
(Domineering), scored (Tanhinmin) and a plain game from a file (Cram). A copy of each table without its
probe index is read the old way. Every position's probe, lookup and batch lookup must be the same from
both; the figures must be DuckDB's row and what a search of the rules, written here from scratch, gives.
"""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from example_oracles import CramRules
from oracles import Oracle, chomp_board, chomp_moves, wythoff_moves
from test_tanhinmin import Minimax, positions, read

import tablebase
from tablebase.probe import FILE_NAME
from tablebase.store import LoadedRows, table_dir
from tablebase.store.probed import ProbedRows

CRAM = f"{Path(__file__).parent.parent / 'examples' / 'cram.py'}:Cram"
TABLES: dict[str, tuple[str, dict[str, Any]]] = {
    "chomp": ("chomp", {"rows": 4, "cols": 4}),
    "wythoff": ("wythoff", {"max": 20}),
    "domineering": ("domineering", {"max_cells": 6}),
    "tanhinmin": ("tanhinmin", {"max_card": 3, "max_hand": 2}),
    "cram": (CRAM, {"rows": 3, "cols": 3}),
}


@pytest.fixture(scope="module")
def folders(built, tmp_path_factory) -> tuple[Path, Path, Path, dict[str, str]]:
    """(the built folder, a copy without probe indexes, a copy with probe indexes only, table by name)."""
    names = {}
    for name, (game, params) in TABLES.items():
        root, names[name] = built(game, **params)
    bare, index_only = tmp_path_factory.mktemp("bare"), tmp_path_factory.mktemp("index_only")
    for table in names.values():
        shutil.copytree(table_dir(root, table), table_dir(bare, table))
        (table_dir(bare, table) / FILE_NAME).unlink()
        shutil.copytree(table_dir(root, table), table_dir(index_only, table))
        shutil.rmtree(table_dir(index_only, table) / "rows")
    return root, bare, index_only, names


# -- the rules, from scratch -----------------------------------------------------------------------
@cache
def domineering_wins(cells: frozenset, left: bool) -> bool:
    """Whether the player to move wins a region (Left places vertical dominoes), by plain search."""
    dr, dc = (1, 0) if left else (0, 1)
    return any(not domineering_wins(cells - {(r, c), (r + dr, c + dc)}, not left)
               for r, c in cells if (r + dr, c + dc) in cells)


def domineering_outcome(text: str) -> str:
    cells = frozenset((r, c) for r, row in enumerate(text.split("|")) for c, ch in enumerate(row) if ch == ".")
    first = (domineering_wins(cells, True), domineering_wins(cells, False))
    return {(True, True): "N", (False, False): "P", (True, False): "L", (False, True): "R"}[first]


def impartial(oracle: Oracle, position: Any, found: dict[str, Any]) -> None:
    g = oracle.grundy(position)
    assert (found["grundy"], found["outcome"], found["remoteness"]) == (g, "N" if g else "P",
                                                                         oracle.remoteness(position))


TANHINMIN = Minimax(positions(3, 2), horizon=6 * 2 + 6)
CRAM_RULES = CramRules(3, 3)
CHECKS = {
    "chomp": lambda p, found: impartial(Oracle(chomp_moves), chomp_board(p), found),
    "wythoff": lambda p, found: impartial(Oracle(wythoff_moves), tuple(sorted(int(x) for x in p.split())), found),
    "cram": lambda p, found: impartial(Oracle(CRAM_RULES.children), CRAM_RULES.read(p), found),
    "domineering": lambda p, found: found["outcome"] == domineering_outcome(p) or pytest.fail(p),
    "tanhinmin": lambda p, found: (found["score"], found["outcome"]) == (
        TANHINMIN.score(read(p)), "N" if TANHINMIN.score(read(p)) > 0 else "P") or pytest.fail(p),
}


@pytest.mark.parametrize("name", TABLES)
def test_the_index_answers_as_the_old_path_duckdb_and_the_rules(folders, name):
    root, bare, _, names = folders
    table = names[name]
    with tablebase.open(root, [CRAM]) as tb, tablebase.open(bare, [CRAM]) as old:
        rows = tb.sql(f"SELECT * FROM {table} ORDER BY key").to_pylist()  # DuckDB's
        for row in rows:
            p = row["position"]
            probed, looked_up = tb.probe(table, p), tb.lookup(table, p)
            assert probed == old.probe(table, p) and list(probed) == list(old.probe(table, p))  # in one order
            assert looked_up == old.lookup(table, p)
            shared = [k for k in row if k in probed and (k != "key" or probed[k] is not None)]  # (the empty board
            assert {k: probed[k] for k in shared} == {k: row[k] for k in shared}  # is a sum of no parts: no key)
            CHECKS[name](p, probed)
        texts = [row["position"] for row in rows]
        assert tb.lookup_many(table, texts).to_pylist() == old.lookup_many(table, texts).to_pylist()
        assert isinstance(tb._rows(table), ProbedRows) and isinstance(old._rows(table), LoadedRows)


@pytest.mark.parametrize("name", ["chomp", "wythoff", "domineering", "tanhinmin"])
def test_a_table_with_only_its_index_answers_lookups(folders, name):
    """Opening reads manifests, and a lookup its probe index: a folder without the Parquet rows still answers."""
    root, _, index_only, names = folders
    table = names[name]
    with tablebase.open(root) as tb, tablebase.open(index_only) as alone:
        for row in tb.sql(f"SELECT position FROM {table}").to_pylist():
            assert alone.lookup(table, row["position"]) == tb.lookup(table, row["position"])


def test_lookup_many_gives_the_columns_asked_for_and_finds_best_moves_only_if_asked(folders, monkeypatch):
    """An impartial table's best move is found by probing the children: a batch that leaves it out of its
    columns never asks for them, and gives the other columns as the whole batch does."""
    from tablebase.kinds import children

    root, _, _, names = folders
    table = names["chomp"]
    with tablebase.open(root) as tb:
        texts = [row["position"] for row in tb.sql(f"SELECT position FROM {table}").to_pylist()]
        whole = tb.lookup_many(table, texts)
        asked = []
        monkeypatch.setattr(children, "children_of", lambda *a, **k: asked.append(1) or pytest.fail("asked"))
        some = tb.lookup_many(table, texts, columns=["key", "grundy", "remoteness"])
        assert some.column_names == ["key", "grundy", "remoteness"] and not asked
        assert some.to_pylist() == whole.select(["key", "grundy", "remoteness"]).to_pylist()
        with pytest.raises(tablebase.UsageError, match="no column 'nope'"):
            tb.lookup_many(table, texts, columns=["nope"])
