"""A real build of every kind writes the files ``tablebase.schema`` says: pyarrow reads each file of rows
and of the values table, and its columns' names, order and Arrow types are the schema's for that table; the
texts of few values hold no other; the manifest holds the schema's fields, each of its JSON type.

What each table holds is written here, from its game's rules (whether it scores, passes, keeps misère
outcomes, stores components), not asked of the code that writes it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from tablebase import schema
from tablebase.build import build_tables
from tablebase.build.jobs import TableSpec, spec_for
from tablebase.kinds import kind_named

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# The conditions an impartial table's columns are held under: whole positions, or parts of sums; misère figures
# in the rows; an octal table's genus symbols (beside its misère quotient, with --misere).
WHOLE = {"whole": True, "misere": False, "genus": False}
PARTS = {"whole": False, "misere": False, "genus": False}
MISERE = {"whole": True, "misere": True, "genus": False}
# (game, options, kind, the conditions that hold for its table, the type of its Grundy values and remoteness)
TABLES = [
    ("chomp", {"rows": 4, "cols": 4}, "impartial", WHOLE, pa.uint8()),
    ("nim", {"heaps": 3, "max_heap": 4}, "impartial", MISERE, pa.uint8()),
    ("green-hackenbush", {"max_edges": 4}, "impartial", WHOLE, pa.uint8()),
    (f"{EXAMPLES}/kayles.py:Kayles", {"max": 6}, "impartial", PARTS, pa.uint8()),
    ("octal", {"code": "0.137", "max": 100}, "impartial", PARTS, pa.uint32()),
    (f"{EXAMPLES}/cram.py:Cram", {"rows": 2, "cols": 3}, "impartial", WHOLE, pa.uint8()),
    # --misere: a dense game of the bites' solver, a plain game, and one of components (built whole)
    ("chomp", {"rows": 4, "cols": 4, "misere": True}, "impartial", MISERE, pa.uint8()),
    (f"{EXAMPLES}/cram.py:Cram", {"rows": 2, "cols": 3, "misere": True}, "impartial", MISERE, pa.uint8()),
    (f"{EXAMPLES}/kayles.py:Kayles", {"max": 6, "misere": True}, "impartial", MISERE, pa.uint8()),
    # an octal table's --misere: its rows add the heaps' genus symbols, its misère quotient lies beside them
    ("octal", {"code": "0.137", "max": 100, "misere": True}, "impartial", {**PARTS, "genus": True}, pa.uint32()),
    ("domineering", {"max_cells": 4}, "partizan", {}, None),
    (f"{EXAMPLES}/toads_and_frogs.py:ToadsAndFrogs", {"cells": 3}, "partizan", {}, None),
    ("tanhinmin", {"max_card": 2, "max_hand": 2}, "scored", {"scores": True, "passes": True}, None),
    (f"{EXAMPLES}/kalah.py:Kalah", {"pits": 2, "seeds": 1}, "scored", {"scores": True, "passes": False}, None),
    (f"{EXAMPLES}/tictactoe.py:TicTacToe", {}, "scored", {"scores": False, "passes": False}, None),
]
FIGURES = ("grundy", "remoteness")  # of the type the game's bound asks for


def _named(table: tuple) -> str:
    return f"{Path(table[0]).stem}-{table[2]}" + ("-misere" if table[1].get("misere") else "")


def _expected(kind: str, held: dict[str, bool], compact: bool, figure: pa.DataType | None) -> pa.Schema:
    """The schema of a file of the kind's rows, from the schema module: each column's one type, or the figure's
    (which must be one the schema allows)."""
    fields = []
    for name in schema.file_columns(kind, text=not compact, **held):
        column = schema.LEVEL if name == schema.LEVEL.name else schema.ROWS[kind][name]
        if len(column.types) > 1:
            assert str(figure) in column.types, f"{name}: {figure} is not a type the schema allows"
            fields.append(pa.field(name, figure))
        else:
            fields.append(pa.field(name, schema.arrow_type(column.type)))
    return pa.schema(fields)


def _check_files(root: Path, spec: TableSpec, kind: str, held: dict[str, bool], figure: pa.DataType | None) -> None:
    folder, compact = root / spec.name, spec.compact
    saved = json.loads((folder / "_manifest.json").read_text())
    fields = {f.name: f for f in schema.MANIFEST}
    assert set(saved) <= set(fields), "fields the schema does not have"
    assert set(fields) - set(saved) <= {"symmetry", "misere", "quotient"}, \
        "only symmetry, misere and quotient are left out where false (or empty)"
    assert bool(saved.get("quotient")) == held.get("genus", False)  # an octal table built with --misere
    assert saved.get("misere", False) == held.get("misere", False)
    for name, value in saved.items():
        assert isinstance(value, schema.JSON_TYPES[fields[name].type]), name
    assert saved["format"] == schema.FORMAT and saved["kind"] == kind and saved["compact"] == compact

    expected = _expected(kind, held, compact, figure)
    # What the game's kind says its rows hold is what they hold (a compact table's files leave out the position).
    said = [c for c in kind_named(kind).columns_of(spec.game) if not (compact and c == "position")]
    assert [*said, "level"] == expected.names
    assert saved["files"]
    for name in saved["files"]:
        stored = pq.read_schema(folder / name)
        assert stored.names == expected.names, name
        assert stored.equals(expected), f"{name}: {stored} is not {expected}"
        rows = pq.read_table(folder / name)
        for column in schema.ROWS[kind].columns:
            if column.values and column.name in rows.column_names:
                found = set(pc.unique(rows.column(column.name)).drop_null().to_pylist())
                assert found <= set(column.values), f"{name}: {column.name} holds {found - set(column.values)}"

    values = saved["values"].get("files", {})
    assert bool(values) == (kind == "partizan")
    for name in values:
        stored = pq.read_schema(folder / name)
        want = pa.schema([pa.field(c.name, schema.arrow_type(c.type)) for c in schema.VALUES.columns])
        assert stored.names == want.names, name
        assert stored.equals(want), f"{name}: {stored} is not {want}"


@pytest.mark.parametrize("table", TABLES, ids=_named)
def test_a_builds_files_are_the_schemas(built, table):
    game, params, kind, held, figure = table
    root, name = built(game, **params)
    _check_files(root, spec_for(game, params, name), kind, held, figure)


def test_a_compact_tables_files_are_the_schemas_without_position(scheduler, tmp_path):
    spec = spec_for("chomp", {"rows": 4, "cols": 4}, compact=True)
    list(build_tables([spec], tmp_path, scheduler=scheduler, quiet=True))
    _check_files(tmp_path, spec, "impartial", WHOLE, pa.uint8())
