"""A program that reads tables imports nothing of the building half, by the shape of the packages.

A fresh interpreter opens a folder holding a dense impartial table (Chomp),
a plain game's table (Cram, from examples/, trusted by name) and a partizan
one (Domineering); it probes, looks up, reads a batch and a line of best
play in each, and then names every module of the building half it has
imported: the build, the builders, the checks, the probe index's writer, the
solvers, the listing's exploration, the store's build lock and work files.
There must be none. What it found is checked against searches of the rules
written here, which share no code with the tables.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a build, and another process

REPO = Path(__file__).resolve().parent.parent
CRAM = f"{REPO / 'examples' / 'cram.py'}:Cram"
BUILDING = ("tablebase.build", "tablebase.builders", "tablebase.checks", "tablebase.probe_writer", "tablebase.solve",
            "tablebase.listing", "tablebase.store.work", "tablebase.store.lock")
ASKED = {"chomp": ("4 4 3 1", None), "cram": ("...|...|...", None), "domineering": ("..|..", "Left")}

READER = """
import json, sys
import tablebase
from tablebase.spelling import as_text
tb = tablebase.open({root!r}, games=[{cram!r}])
found = {{}}
for name, (table, text, first) in {asked!r}.items():
    found[name] = {{"probe": tb.probe(table, text), "lookup": tb.lookup(table, text),
                   "many": tb.lookup_many(table, [text]).to_pylist(), "line": tb.line(table, text, first)}}
building = sorted(m for m in sys.modules if any(m == b or m.startswith(b + ".") for b in {building!r}))
print(json.dumps({{"found": as_text(found), "building": building}}))
"""


def test_a_reading_program_imports_nothing_of_the_building_half(built):
    """It answers each table as the rules say, and has imported no module of the building half."""
    root, _ = built("chomp", rows=4, cols=4)  # every table of the session is in one folder
    tables = {"chomp": built("chomp", rows=4, cols=4)[1], "cram": built(CRAM, rows=3, cols=3)[1],
              "domineering": built("domineering", max_cells=6)[1]}
    asked = {name: (tables[name], text, first) for name, (text, first) in ASKED.items()}
    code = READER.format(root=str(root), cram=CRAM, asked=asked, building=BUILDING)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO,
                          check=False)
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    impartial_answers(read["found"]["chomp"], ASKED["chomp"][0], chomp_of)
    impartial_answers(read["found"]["cram"], ASKED["cram"][0], cram)
    partizan_answers(read["found"]["domineering"])
    assert read["building"] == []


# -- the answers, by searches of the rules written here ---------------------------------------------
def mex(values: set[int]) -> int:
    g = 0
    while g in values:
        g += 1
    return g


@cache
def chomp(rows: tuple[int, ...]) -> int:
    """Chomp's Grundy value: a bite at (r, c) cuts every row from r on to at most c squares, the poisoned
    square (the top row's first) never bitten."""
    moves = {tuple(n for n in rows[:r] + tuple(min(x, c) for x in rows[r:]) if n)
             for r in range(len(rows)) for c in range(rows[r]) if (r, c) != (0, 0)}
    return mex({chomp(m) for m in moves})


@cache
def cram(board: str) -> int:
    """Cram's Grundy value: a domino on two empty cells side by side or one above the other."""
    cells = [list(row) for row in board.split("|")]
    after = set()
    for r, row in enumerate(cells):
        for c, cell in enumerate(row):
            for r2, c2 in ((r, c + 1), (r + 1, c)):
                if cell == "." and r2 < len(cells) and c2 < len(row) and cells[r2][c2] == ".":
                    moved = [list(x) for x in cells]
                    moved[r][c] = moved[r2][c2] = "#"
                    after.add("|".join("".join(x) for x in moved))
    return mex({cram(b) for b in after})


def chomp_of(text: str) -> int:
    return chomp(tuple(int(n) for n in text.split()))


def impartial_answers(found: dict, text: str, grundy_of: Callable[[str], int]) -> None:
    """An impartial table's probe, lookup, batch and line of ``text``, against the Grundy values of the rules."""
    g = grundy_of(text)
    looked = found["lookup"]
    assert (found["probe"]["grundy"], found["probe"]["outcome"]) == (g, "N" if g else "P")
    assert (looked["grundy"], found["many"][0]["grundy"]) == (g, g)
    assert {m["move"]: m["grundy"] for m in looked["moves"]} == {m["move"]: grundy_of(m["position"])
                                                                 for m in looked["moves"]}
    steps = found["line"]["steps"]
    assert [s["outcome"] for s in steps] == ["N" if grundy_of(s["position"]) else "P" for s in steps]
    assert steps[-1]["move"] is None and len(steps) == looked["remoteness"] + 1


def partizan_answers(found: dict) -> None:
    """The 2x2 Domineering board is {1 | -1}: each side's domino leaves the other side nothing and itself one
    more move (Winning Ways)."""
    assert (found["probe"]["value"], found["probe"]["outcome"]) == ("+-1", "N")
    assert (found["lookup"]["value"], found["many"][0]["value"]) == ("+-1", "+-1")
    assert {m["side"]: m["value"] for m in found["lookup"]["moves"]} == {"Left": "1", "Right": "-1"}
    line = found["line"]
    assert [s["mover"] for s in line["steps"]] == ["Left", "Right"] and line["ended"] == "Right has no move"
