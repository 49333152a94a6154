"""Searches beyond a Domineering table: in Python while small, in compiled loops once large, the same answers.

A board larger than the table is valued by searching its moves down to the regions the table holds. The
search starts in Python and, once it has taken ``COMPILE_AFTER`` parts, hands what is left to the game's
compiled graph of parts (``games/region_graph.py``). Oracles: cgt-py's canonical form of the board, the
definition played on sets of cells (``test_domineering.by_definition``), and, for the graph itself, the
regions' Python code (``regions.normal_form``, ``pack``, through ``board_parts``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_domineering import board, by_definition

import tablebase
import tablebase.kinds.searches as searches
from tablebase.cgt import Value, from_options, parse
from tablebase.errors import OverLimit
from tablebase.games import regions as R
from tablebase.games.domineering import Domineering
from tablebase.kinds import Bounds, searching
from tablebase.kinds.budget import PART_BYTES

sys.path.insert(0, str(Path(__file__).parent / "cgt"))
from cgt_helpers import import_cgt_py  # noqa: E402

# Boards beyond a table of 6 cells: one region, a transpose, regions apart, a hole, a tall strip.
BOARDS = ["....|....|....|....|....", ".....|.....|.....|.....", "...#....|...#....|...#....",
          ".....|..#..|.....|.....", "..|..|..|..|..|..|..|.."]
TALL = "|".join(["."] * 40)  # 40 rows: too tall for the compiled layout, searched in Python whatever its size


def graph_against_regions(game: Domineering, text: str) -> int:
    """Every part of the graph of ``text``'s large parts, its moves and the regions each leaves, against what
    ``board_moves`` and ``board_parts`` give in Python; the number of parts."""
    roots = [part for part, key, _ in game.board_parts(R.read(text)) if key is None]
    graph = game.part_graph(roots, lambda found: None)
    assert [graph.part(i) for i in graph.roots.tolist()] == roots
    moves = graph.moves
    for i in range(len(graph.levels)):
        part = graph.part(i)
        assert graph.levels[i] == part.bit_count()
        for side, listed in enumerate(game.board_moves(part)):
            first, last = moves.offsets[2 * i + side], moves.offsets[2 * i + side + 1]
            assert moves.moves[first:last].tolist() == [code for code, _ in listed]
            for j, (_, after) in zip(range(first, last), listed):
                a, b = moves.starts[j], moves.starts[j + 1]
                got = [(graph.part(k), None, n) if s else (game.board_of_key(k), k, n) for k, s, n in
                       zip(moves.keys[a:b].tolist(), graph.searched[a:b].tolist(), moves.negate[a:b].tolist())]
                assert sorted(got, key=repr) == sorted(game.board_parts(after), key=repr), (R.spell(part), after)
                assert all(graph.levels[k] < graph.levels[i] for k in moves.keys[a:b][graph.searched[a:b]])
    return len(graph.levels)


@pytest.mark.parametrize("cells, text", [(6, BOARDS[0]), (6, BOARDS[2]), (6, BOARDS[4]), (8, "#....|.....|....#"),
                                         (4, "|".join(["."] * 30))])
def test_the_graph_of_parts_is_what_the_regions_give(cells, text):
    assert graph_against_regions(Domineering(max_cells=cells), text) > 1


def test_a_part_too_large_for_the_compiled_layout_has_no_graph():
    game = Domineering(max_cells=4)
    for text in (TALL, "|".join(["." * 9] * 7)):  # 40 x (1 + 1) and 7 x (9 + 1) bits: more than 63
        assert game.part_graph([p for p, _, _ in game.board_parts(R.read(text))], lambda found: None) is None


@pytest.fixture(scope="module")
def table6(built):
    return built("domineering", max_cells=6)


def looked_up(root: Path, table: str, text: str, compile_after: int, monkeypatch) -> tuple[dict, int]:
    """A lookup of ``text`` in a table opened afresh, the search handed over after ``compile_after`` parts;
    and how many compiled graphs it was given."""
    graphs = []
    part_graph = Domineering.part_graph

    def counted(self, parts, check):
        graph = part_graph(self, parts, check)
        graphs.append(graph is not None)
        return graph

    with monkeypatch.context() as m:
        m.setattr(searches, "COMPILE_AFTER", compile_after)
        m.setattr(Domineering, "part_graph", counted)
        with tablebase.open(root) as tb:
            row = tb.lookup(table, text)
    return row, sum(graphs)


def from_cgt_py(form, memo: dict) -> Value:
    key = repr(form)
    if key not in memo:
        memo[key] = from_options([from_cgt_py(x, memo) for x in form.left_options],
                                 [from_cgt_py(x, memo) for x in form.right_options])
    return memo[key]


@pytest.mark.parametrize("text", BOARDS)
def test_a_large_search_answers_the_same_compiled_and_in_python(table6, text, monkeypatch):
    root, table = table6
    in_python, graphs = looked_up(root, table, text, 10**9, monkeypatch)
    assert graphs == 0
    compiled, graphs = looked_up(root, table, text, 0, monkeypatch)
    assert graphs == 1  # the whole search in compiled loops, from its first part
    assert compiled == in_python
    assert compiled["searched"]
    cgt_py = import_cgt_py()
    assert parse(compiled["value"]) == from_cgt_py(cgt_py.Domineering(text).canonical_form, {})
    for move in compiled["moves"]:  # each move leaves a board worth the value listed
        assert parse(move["value"]) == by_definition(board(move["position"])), (text, move)


def test_a_board_too_tall_for_the_compiled_layout_is_searched_in_python(table6, monkeypatch):
    root, table = table6
    row, graphs = looked_up(root, table, TALL, 0, monkeypatch)
    assert graphs == 0 and parse(row["value"]) == parse("20") and row["searched"]


@pytest.mark.parametrize("bounds, said", [(Bounds(seconds=None, memory=100 * PART_BYTES), "memory bound"),
                                          (Bounds(seconds=0.0), "time limit of 0 s")])
def test_a_compiled_search_keeps_to_its_budget(table6, monkeypatch, bounds, said):
    root, table = table6
    monkeypatch.setattr(searches, "COMPILE_AFTER", 0)
    with tablebase.open(root) as tb, searching(bounds.budget()), pytest.raises(OverLimit, match=said) as raised:
        tb.lookup(table, BOARDS[0])
    assert "\n" not in str(raised.value)


def test_a_compiled_search_stops_when_told(table6, monkeypatch):
    root, table = table6
    monkeypatch.setattr(searches, "COMPILE_AFTER", 0)
    asked = []
    with tablebase.open(root) as tb, searching(Bounds().budget(stop=lambda: asked.append(1) or True)):
        with pytest.raises(OverLimit, match="stopped"):
            tb.lookup(table, BOARDS[0])
    assert asked


def test_a_search_is_compiled_only_once_it_is_large(table6):
    """A fresh program: a stored region and a small search import no numba; a large search (5x5 through a
    table of 6 cells, thousands of parts) hands over and does, with the answer the definition gives."""
    root, table = table6
    code = f"""
import json, sys, tablebase
tb = tablebase.open({str(root)!r})
small = tb.lookup({table!r}, "...|...|...|...")
loaded = ["numba" in sys.modules]
large = tb.lookup({table!r}, ".....|.....|.....|.....|.....")
loaded.append("numba" in sys.modules)
print(json.dumps([small["value"], large["value"], loaded]))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    small, large, loaded = json.loads(done.stdout)
    assert loaded == [False, True]
    assert parse(small) == by_definition(board("...|...|...|..."))
    assert parse(large) == from_cgt_py(import_cgt_py().Domineering(".....|.....|.....|.....|.....").canonical_form,
                                       {})
