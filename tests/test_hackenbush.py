"""Hackenbush tables against closed forms and against the rules played out in the test."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

import pytest
from conftest import rows_of

from tablebase.cgt import ZERO, Value, dyadic, from_options, nimber, parse
from tablebase.games import make_game


def berlekamp(stalk: str) -> Fraction:
    """Berlekamp's sign-expansion rule for a Red-Blue stalk read from the ground up.

    The edges up to the first change of colour count 1 each; every edge after
    that counts half as much as the one below it; Blue edges count for Left
    (+), Red ones for Right (-).
    """
    value, weight, changed = Fraction(0), Fraction(1), False
    for i, c in enumerate(stalk):
        if i and c != stalk[i - 1]:
            changed = True
        if changed:
            weight /= 2
        value += weight if c == "B" else -weight
    return value


def test_berlekamp_rule_itself():
    assert berlekamp("") == 0 and berlekamp("BBR") == Fraction(3, 2) and berlekamp("RBB") == Fraction(-1, 4)


def stalk_value(stalk: str) -> Value:
    """The value from the rules alone: cut an edge, everything above it falls."""
    lefts = [stalk_value(stalk[:i]) for i, c in enumerate(stalk) if c in "BG"]
    rights = [stalk_value(stalk[:i]) for i, c in enumerate(stalk) if c in "RG"]
    return from_options(lefts, rights)


# A tree here is a sorted tuple of (colour, tree) branches, read from the stored text.
def read(text: str):
    pos = 0

    def node():
        nonlocal pos
        assert text[pos] == "("
        pos += 1
        out = []
        while text[pos] != ")":
            colour = "G"
            if text[pos] in "BR":
                colour = text[pos]
                pos += 1
            out.append((colour, node()))
        pos += 1
        return tuple(out)  # branches in the order they are spelt, so edges number as spelt

    return node()


def cuts(tree):
    """(colour, tree after the cut) for each edge, in the order the edges are spelt."""
    for i, (colour, sub) in enumerate(tree):
        rest = tree[:i] + tree[i + 1 :]
        yield colour, rest
        for c, pruned in cuts(sub):
            yield c, rest[:i] + ((colour, pruned),) + rest[i:]


def shape(tree):
    return tuple(sorted((c, shape(t)) for c, t in tree))


def tree_value(tree) -> Value:
    return _value(shape(tree))


@lru_cache(maxsize=None)
def _value(tree) -> Value:
    return from_options([_value(shape(t)) for c, t in cuts(tree) if c in "BG"],
                        [_value(shape(t)) for c, t in cuts(tree) if c in "RG"])


def check_row(row: dict, value: Value, left_results: dict, right_results: dict) -> None:
    """One stored row against the value and the moves (move name -> result value) of the rules."""
    assert row["value"] == str(value), row["position"]
    assert parse(row["value"]) == value
    assert row["outcome"] == value.outcome
    assert Fraction(row["mean"]) == value.mean and Fraction(row["temperature"]) == value.temperature
    assert (row["left_moves"], row["right_moves"]) == (len(left_results), len(right_results))
    for best, results, options in (("best_left", left_results, value.left_options),
                                   ("best_right", right_results, value.right_options)):
        if not results:
            assert row[best] is None
            continue
        assert row[best] in results
        if any(v in options for v in results.values()):
            assert results[row[best]] in options, (row["position"], best)


def test_red_blue_stalks_follow_berlekamp(built):
    root, table = built("hackenbush", max_edges=8, colors="BR", shape="stalk")
    rows = rows_of(root, table)
    assert len(rows) == sum(2**e for e in range(9))
    for row in rows:
        stalk = row["position"].strip("-")
        assert row["level"] == len(stalk)
        assert parse(row["value"]).is_number
        assert parse(row["value"]) == dyadic(berlekamp(stalk)), stalk


def test_green_stalks_are_nimbers(built):
    root, table = built("hackenbush", max_edges=6, colors="BRG", shape="stalk")
    rows = {r["position"]: r for r in rows_of(root, table)}
    assert len(rows) == sum(3**e for e in range(7))
    for n in range(1, 7):
        assert rows["G" * n]["value"] == str(nimber(n)) == ("*" if n == 1 else f"*{n}")
    assert rows["-"]["value"] == "0"


def test_every_stalk_by_the_rules(built):
    root, table = built("hackenbush", max_edges=6, colors="BRG", shape="stalk")
    for row in rows_of(root, table):
        stalk = row["position"].strip("-")
        lefts = {f"cut {i + 1}": stalk_value(stalk[:i]) for i, c in enumerate(stalk) if c in "BG"}
        rights = {f"cut {i + 1}": stalk_value(stalk[:i]) for i, c in enumerate(stalk) if c in "RG"}
        check_row(row, stalk_value(stalk), lefts, rights)


def test_every_tree_by_the_rules(built):
    root, table = built("hackenbush", max_edges=5, colors="BRG", shape="tree")
    rows = rows_of(root, table)
    assert [sum(1 for r in rows if r["level"] == e) for e in range(6)] == [1, 3, 15, 82, 495, 3144]
    for row in rows:
        tree = read(row["position"])
        moves = list(cuts(tree))
        lefts = {f"cut {i + 1}": tree_value(t) for i, (c, t) in enumerate(moves) if c in "BG"}
        rights = {f"cut {i + 1}": tree_value(t) for i, (c, t) in enumerate(moves) if c in "RG"}
        check_row(row, tree_value(tree), lefts, rights)


def test_green_trees_agree_with_green_hackenbush(built):
    root, table = built("hackenbush", max_edges=5, colors="BRG", shape="tree")
    green_root, green_table = built("green-hackenbush", max_edges=5)
    grundy = {r["position"]: r["grundy"] for r in rows_of(green_root, green_table)}
    green = {r["position"]: r["value"] for r in rows_of(root, table) if not re.search("[BR]", r["position"])}
    assert set(green) == set(grundy)
    for position, value in green.items():
        assert parse(value) == nimber(grundy[position]), position


def test_red_blue_trees_have_no_green(built):
    root, table = built("hackenbush", max_edges=4, colors="BR", shape="tree")
    rows = rows_of(root, table)
    assert [sum(1 for r in rows if r["level"] == e) for e in range(5)] == [1, 2, 7, 26, 107]
    for row in rows:
        assert re.fullmatch(r"\((?:[BR]\(|\))*", row["position"]), row["position"]  # every edge coloured
        assert parse(row["value"]).is_number  # Red-Blue positions are numbers
        assert parse(row["value"]) == tree_value(read(row["position"]))


def test_parse_spellings(built):
    import tablebase

    root, table = built("hackenbush", max_edges=5, colors="BRG", shape="tree")
    with tablebase.open(root) as tb:
        a = tb.lookup(table, "( R() B(()) )")
        assert a["position"] == "(R()B(()))"  # smaller branches first
        assert parse(a["value"]) == tree_value(read("(R()B(()))"))
        assert {m["move"] for m in a["moves"]} == {"cut 1", "cut 2", "cut 3"}
    assert ZERO == tree_value(())


def test_a_stalk_is_read_by_a_tree_table_and_a_tree_without_branches_by_a_stalk_table(built):
    """A stalk is a tree: each table reads both spellings of it, and says only the forms it reads."""
    import tablebase
    from tablebase.errors import PositionError

    trees, tree_table = built("hackenbush", max_edges=5, colors="BRG", shape="tree")
    stalks, stalk_table = built("hackenbush", max_edges=6, colors="BRG", shape="stalk")
    with tablebase.open(trees) as tb:
        stalk = tb.lookup(tree_table, "BRRB")
        assert stalk["position"] == "(B(R(R(B()))))"
        assert parse(stalk["value"]) == dyadic(berlekamp("BRRB"))
        assert tb.lookup(tree_table, "-")["position"] == "()"
        assert tb.lookup(tree_table, "BRRG")["key"] == tb.lookup(tree_table, "(B(R(R(()))))")["key"]
    with tablebase.open(stalks) as tb:
        assert tb.lookup(stalk_table, "(B(R(R(B()))))")["position"] == "BRRB"
        with pytest.raises(PositionError) as refused:
            tb.lookup(stalk_table, "(B()R())")
        said = str(refused.value)
        assert "a tree that branches is not a stalk" in said and "(B()R(G()))" not in said


@pytest.mark.parametrize("bad", ["(X())", "(()", "B()"])
def test_bad_trees(built, bad):
    import tablebase
    from tablebase.errors import PositionError

    root, table = built("hackenbush", max_edges=5, colors="BRG", shape="tree")
    with tablebase.open(root) as tb, pytest.raises(PositionError):
        tb.lookup(table, bad)


def test_values_view_holds_each_form_once(built):
    import tablebase
    from tablebase.cgt import stable_id

    root, table = built("hackenbush", max_edges=6, colors="BRG", shape="stalk")
    with tablebase.open(root) as tb:
        values = tb.sql(f"SELECT * FROM {table}_values").to_pylist()
        positions = tb.sql(f"SELECT count(*) AS n FROM {table}").to_pylist()[0]["n"]
    assert len({v["id"] for v in values}) == len(values)
    assert sum(v["positions"] for v in values) == positions
    for v in values:
        g = parse(v["value"])
        assert stable_id(g) == v["id"]
        assert v["left_ids"] == [stable_id(x) for x in g.left_options]
        assert v["right_ids"] == [stable_id(x) for x in g.right_options]
        assert v["is_number"] == g.is_number and v["birthday"] == g.birthday
        assert (Fraction(v["left_stop"]), Fraction(v["right_stop"])) == (g.left_stop, g.right_stop)


# Rooted trees by edges, OEIS: A000081 (one colour), A000151 (two), A006964 (three), shifted to count edges.
ROOTED_TREES = {1: [1, 1, 2, 4, 9, 20, 48, 115, 286, 719, 1842, 4766, 12486],
                2: [1, 2, 7, 26, 107, 458, 2058, 9498, 44947],
                3: [1, 3, 15, 82, 495, 3144, 20875, 142773, 1000131]}


@pytest.mark.parametrize("colours", [1, 2, 3])
def test_tree_tables_count_their_levels_as_published(colours):
    """Level sizes come from counting, without listing a tree (the plan asks for them first): the
    published counts of coloured rooted trees, and the number of keys each level lists."""
    if colours == 1:
        game = make_game("green-hackenbush", {"max_edges": 12})
    else:
        game = make_game("hackenbush", {"max_edges": 8, "colors": "BRG"[:colours], "shape": "tree"})
    sizes = [game.level_size(level) for level in range(game.max_level + 1)]
    assert sizes == ROOTED_TREES[colours][: game.max_level + 1]
    for level in range(min(game.max_level, 6) + 1):
        assert len(game.level_keys(level, 0, sizes[level])) == sizes[level]


def test_a_tree_table_is_planned_without_listing_its_trees(monkeypatch):
    """The build's first step (how many positions, per level) counts trees: listing the million trees of
    8 edges in three colours took most of a minute before the first line of progress."""
    from tablebase.build.plan import level_sizes
    from tablebase.games import trees

    game = make_game("hackenbush", {"max_edges": 8, "colors": "BRG", "shape": "tree"})
    monkeypatch.setattr(trees, "trees", lambda *args: pytest.fail("a tree was listed to plan the table"))
    assert sum(level_sizes(game)) == sum(ROOTED_TREES[3])
