"""The Python API: tablebase.open, sql, lookup, probe and lookup_many agree with each other."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import tablebase
from tablebase.errors import PositionError, StoreError, UsageError


@pytest.fixture(scope="module")
def tb(built):
    root, _ = built("nim", heaps=3, max_heap=12, partition_rows=50)
    built("chomp", rows=4, cols=5)
    with tablebase.open(root) as handle:
        yield handle


def test_sql_returns_arrow(tb):
    table = tb.sql("SELECT count(*) AS n FROM nim_3x12")
    assert isinstance(table, pa.Table) and table.column("n").to_pylist() == [455]  # C(15, 3)


def test_probe_and_lookup_agree_with_sql(tb):
    stored = {r["position"]: r for r in tb.sql("SELECT * FROM nim_3x12").to_pylist()}
    for position, row in list(stored.items())[::17]:
        probed = tb.probe("nim_3x12", " ".join(reversed(position.split())))
        looked = tb.lookup("nim_3x12", position)
        for column in ("key", "level", "grundy", "outcome", "misere_outcome", "remoteness", "best_move"):
            assert probed[column] == row[column] == looked[column], (position, column)
        assert looked["position"] == position
        assert len(looked["moves"]) == len({m["position"] for m in looked["moves"]})
        for move in looked["moves"]:
            assert stored[move["position"]]["grundy"] == move["grundy"]


def test_a_probe_gives_the_figures_asked_for_and_the_best_move_only_if_asked(tb):
    stored = {r["position"]: r for r in tb.sql("SELECT * FROM chomp_4x5").to_pylist()}
    for position, row in list(stored.items())[::7]:
        held = tb.probe("chomp_4x5", position, columns=["grundy", "remoteness"])
        assert held == {"grundy": row["grundy"], "remoteness": row["remoteness"]}, position
        asked = tb.probe("chomp_4x5", position, columns=("outcome", "best_move"))
        assert asked == {"outcome": row["outcome"], "best_move": row["best_move"]}, position
    with pytest.raises(UsageError, match="no column 'nothing'"):
        tb.probe("chomp_4x5", "5 5", columns=["nothing"])


def test_lookup_many_from_lists_and_arrow_arrays(tb):
    positions = tb.sql("SELECT position FROM chomp_4x5 ORDER BY key DESC").column("position")
    expected = tb.sql("SELECT key, position, grundy, outcome, remoteness, best_move FROM chomp_4x5 ORDER BY key DESC")
    for given in (positions, positions.to_pylist(), np.array(positions.to_pylist())):
        got = tb.lookup_many("chomp_4x5", given)
        assert got.select(expected.column_names).to_pylist() == expected.to_pylist()
    # Other spellings of the same diagrams find the same rows.
    respelt = [p.replace(" ", ",") + ",0" for p in positions.to_pylist()[:10]]
    assert tb.lookup_many("chomp_4x5", respelt).column("key").to_pylist() == expected.column("key").to_pylist()[:10]


def test_lookup_many_gives_each_position_as_the_table_spells_it(tb):
    """Texts the table writes come back as given; any other spelling comes back as the table writes it."""
    stored = tb.sql("SELECT key, position FROM nim_3x12 ORDER BY key").to_pylist()
    spelt = [r["position"] for r in stored]
    others = [", ".join(reversed(p.split())) for p in spelt]  # the largest heap first, commas
    one = max(i for i, p in enumerate(spelt) if p.startswith("0 "))
    others[one] = spelt[one][2:]  # an empty heap left out
    for given in (spelt, others, spelt[:one] + others[one:one + 1] + spelt[one + 1:]):
        assert tb.lookup_many("nim_3x12", given).column("position").to_pylist() == spelt
        assert tb.lookup_many("nim_3x12", pa.array(given)).column("position").to_pylist() == spelt
    assert tb.lookup_many("nim_3x12", others, with_positions=False).column_names == \
        tb.lookup_many("nim_3x12", spelt, with_positions=False).column_names


def test_batch_errors_name_the_bad_position(tb):
    with pytest.raises(PositionError, match="'5 6'.*non-increasing"):
        tb.lookup_many("chomp_4x5", ["5 5 2", "5 6"])
    with pytest.raises(PositionError, match="outside"):
        tb.probe("nim_3x12", "1 2 13")
    with pytest.raises(StoreError, match="no table"):
        tb.probe("nim_9x9", "1")


def test_probe_and_batch_of_partizan_boards_respect_transposes(built):
    root, table = built("domineering", max_cells=6)
    with tablebase.open(root) as tb:
        # Two rows of three is {2|-1/2}; its transpose is the negative (Left plays vertically).
        assert tb.probe(table, "...|...")["value"] == "{2|-1/2}"
        assert tb.probe(table, "..|..|..")["value"] == "{1/2|-2}"
        values = tb.lookup_many(table, ["....", ".|.|.|.", "..|.."]).column("value").to_pylist()
        assert values == ["-2", "2", "+-1"]
