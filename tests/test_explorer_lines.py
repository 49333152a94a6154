"""The explorer's way through a game: a page for a line of best play, the positions a reader came through,
Hackenbush edges numbered as the moves that cut them, a table's start position, charts whose axes say what
they count, and the regions of a sum drawn at one scale. Checked against the rules, not the pages' code."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import unescape
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from explorer_oracles import SVG, board_of, marks_of
from fastapi.testclient import TestClient

import tablebase
from tablebase.http.app import create_app
from tablebase.http.trail import MOST

pytestmark = pytest.mark.slow  # tables built on the session's cluster


@pytest.fixture(scope="module")
def tables(built):
    names = {"chomp": built("chomp", rows=3, cols=4)[1], "domineering": built("domineering", max_cells=5)[1],
             "tree": built("hackenbush", max_edges=4, shape="tree", colors="BRG")[1],
             "green": built("green-hackenbush", max_edges=5)[1]}
    return built("chomp", rows=3, cols=4)[0], names


@pytest.fixture(scope="module")
def client(tables):
    with TestClient(create_app(tables[0])) as c:
        yield c


def page(client, path: str, status: int = 200) -> str:
    response = client.get(path, follow_redirects=False)
    assert response.status_code == status, (path, response.status_code, response.text[:300])
    return response.text


def hrefs(html: str, pattern: str) -> list[str]:
    return [unescape(h) for h in re.findall(pattern, html)]


def bite(lengths: list[int], move: str) -> list[int]:
    """Chomp's rule: biting square (r,c) (counted from 1 at the poisoned corner) takes it and every square
    below and right of it."""
    r, c = map(int, re.fullmatch(r"\((\d+),(\d+)\)", move).groups())
    return [n if i < r - 1 else min(n, c - 1) for i, n in enumerate(lengths) if i < r - 1 or min(n, c - 1)]


# -- a line of best play ----------------------------------------------------------------------------------------
def test_a_position_page_links_to_a_page_of_its_line_with_the_boards_in_order_and_a_way_back(client, tables):
    chomp = tables[1]["chomp"]
    html = page(client, f"/tables/{chomp}/position?position=4%204%202")
    (line,) = hrefs(html, r'id="line" href="([^"]*)"')
    assert line.startswith(f"/tables/{chomp}/best-play?position=")
    shown = page(client, line)
    steps = re.findall(r'<li class="line-step outcome-(\w)">(.*?)</li>', shown, re.DOTALL)
    positions = [unescape(re.search(r'class="position" href="[^"]*">([^<]*)</a>', s).group(1)) for _, s in steps]
    played = [unescape(m) for m in re.findall(r'<span class="move-name">([^<]*)</span>', shown)]
    assert positions[0] == "4 4 2" and len(played) == len(positions) - 1 and positions[-1] == "1"
    for before, move, after in zip(positions, played, positions[1:]):  # each board follows by the rule
        assert bite(list(map(int, before.split())), move) == list(map(int, after.split())), (before, move)
    # The winner hurries: from a won position the line alternates won and lost down to the lone poisoned square.
    assert [o for o, _ in steps] == ["N" if (len(steps) - 1 - i) % 2 else "P" for i in range(len(steps))]
    boards = [ET.fromstring(b) for b in re.findall(r'<div class="line-board">(<svg.*?</svg>)</div>', shown, re.S)]
    assert len(boards) == len(positions) and all(marks_of(b) for b in boards[:-1]) and not marks_of(boards[-1])
    (back,) = set(hrefs(shown, r'id="back" href="([^"]*)"'))
    assert back == f"/tables/{chomp}/position?position=4%204%202" and page(client, back)


def test_a_partizan_line_takes_turns_from_the_side_named_and_asks_for_one(client, tables):
    board = tables[1]["domineering"]
    position = "....|....|...."  # larger than the table: valued by search, and a line of several moves
    html = page(client, f"/tables/{board}/position?position={quote(position)}")
    left = hrefs(html, r'id="line-left" href="([^"]*)"')[0]
    assert "/best-play?" in left and "first=Left" in left
    shown = page(client, left)
    movers = re.findall(r'<p class="step-move">(Left|Right) plays', shown)
    assert len(movers) >= 3 and movers == ["Left", "Right"] * (len(movers) // 2) + ["Left"] * (len(movers) % 2)
    asked = page(client, f"/tables/{board}/best-play?position={quote('...|...')}", 400)
    assert "Bad request" in asked and "the side to move first: Left or Right" in asked


# -- the positions a reader came through ---------------------------------------------------------------------
def test_moves_carry_the_positions_came_through_and_each_leads_back(client, tables):
    chomp = tables[1]["chomp"]
    first = page(client, f"/tables/{chomp}/position?position=4%204%204")
    assert 'id="trail"' not in first
    onward = hrefs(first, r'<td class="to"><a class="position" href="([^"]*)"')[0]
    assert parse_qs(urlsplit(onward).query)["from"] == ["4 4 4"]
    second = page(client, onward)
    back = hrefs(second, r'<p id="trail">Came through: <a class="position" href="([^"]*)"')
    assert back == [f"/tables/{chomp}/position?position=4%204%204"]
    onward = hrefs(second, r'<td class="to"><a class="position" href="([^"]*)"')[0]
    here = parse_qs(urlsplit(onward).query)
    assert here["from"] == ["4 4 4", unescape(re.search(r'id="position-title" class="position">([^<]*)<',
                                                         second).group(1))]
    # The trail is bounded: the latest positions are kept.
    many = "".join(f"&from={n}%20{n}" for n in range(1, 30))
    third = page(client, f"/tables/{chomp}/position?position=1{many}")
    kept = re.findall(r'<a class="position" href="[^"]*">(\d+ \d+)</a> →', third)
    assert kept == [f"{n} {n}" for n in range(30 - MOST, 30)]


# -- Hackenbush: the edges numbered as the moves that cut them -----------------------------------------------
def _without_edge(spelling: str, n: int) -> str:
    """The spelling with its n-th edge (by the order of its brackets) and everything above it taken away."""
    opened, depth, start = 0, 0, None
    for i, ch in enumerate(spelling):
        if ch == "(" and i > 0:
            opened += 1
            if opened == n:
                start = i - 1 if spelling[i - 1] in "BRG" else i
                depth = 0
        if start is not None:
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and ch == ")":
                return spelling[:start] + spelling[i + 1:]
    raise AssertionError((spelling, n))


@pytest.mark.parametrize("which", ["tree", "green"])
def test_every_edge_is_numbered_on_the_picture_as_the_move_that_cuts_it(client, tables, which):
    root, names = tables
    table = names[which]
    with tablebase.open(root) as tb:
        rows = tb.sql(f"SELECT position FROM {table} WHERE level >= 2 ORDER BY key LIMIT 12").column(0).to_pylist()
        for position in rows:
            looked = tb.lookup(table, position)
            edges = position.count("(") - 1
            html = page(client, f"/tables/{table}/position?position={quote(position)}")
            numbers = {t.get("data-cell"): t.text for t in board_of(html).iter(SVG + "text")
                       if (t.get("data-cell") or "").startswith("edge ")}
            assert numbers == {f"edge {n}": str(n) for n in range(1, edges + 1)}, position
            for move in looked["moves"]:
                n = int(move["move"].split()[1])
                assert tb.lookup(table, _without_edge(position, n))["position"] == move["position"], (position, n)
                side = f"&side={move['side']}" if "side" in move else ""
                shown = board_of(page(client, f"/tables/{table}/position?position={quote(position)}"
                                              f"&move={quote(move['move'])}{side}"))
                assert [cells for _, _, cells in marks_of(shown)] == [{f"edge {n}"}]
            assert "is not drawn on the board" not in html


# -- a table's start, charts and regions ---------------------------------------------------------------------
def test_a_table_page_links_to_its_start_position(client, tables):
    chomp = tables[1]["chomp"]
    (start,) = hrefs(page(client, f"/tables/{chomp}"), r'<p id="start">The start position: <a class="position" '
                                                       r'href="([^"]*)"')
    assert parse_qs(urlsplit(start).query)["position"] == ["4 4 4"]  # the whole 3 x 4 bar
    assert page(client, start)
    board = tables[1]["domineering"]
    assert re.search(r'<p id="start">A largest position \(one of [\d,]+ at level 5, the top\)',
                     page(client, f"/tables/{board}"))


def test_the_hottest_positions_chart_shows_temperature_by_level_with_its_axes_named(client, tables):
    html = page(client, f"/tables/{tables[1]['domineering']}")
    section = re.search(r"<h2>the hottest positions of each size.*?(<svg.*?</svg>)", html, re.S).group(1)
    chart = ET.fromstring(section)
    texts = {t.get("class"): t.text for t in chart.iter(SVG + "text") if t.get("class") in ("axis", "axis-upright")}
    assert texts == {"axis": "level", "axis-upright": "temperature"}
    with tablebase.open(tables[0]) as tb:
        hottest = tb.sql(f"SELECT level, max(temperature) AS t FROM {tables[1]['domineering']} GROUP BY level "
                         "ORDER BY level").to_pylist()
    tips = [r.find(SVG + "title").text for r in chart.iter(SVG + "rect") if r.find(SVG + "title") is not None]
    for row in hottest:  # a bar for each level whose hottest position is not at temperature 0
        if row["t"]:
            assert any(tip.startswith(f"level {row['level']}, temperature ") for tip in tips), row


def test_the_regions_of_a_sum_are_drawn_at_one_scale(client, tables):
    board = tables[1]["domineering"]
    html = page(client, f"/tables/{board}/position?position={quote('.....|#####|.#.##|.#...')}")
    regions = [ET.fromstring(r) for r in re.findall(r"<div>(<svg.*?</svg>)</div>", html, re.DOTALL)]
    assert len(regions) >= 2
    scales = {round(float(r.get("width")) / float(r.get("viewBox").split()[2]), 3) for r in regions}
    assert len(scales) == 1, scales
    sizes = {float(r.get("viewBox").split()[2]) * float(r.get("viewBox").split()[3]) for r in regions}
    assert len(sizes) > 1  # regions of different sizes, drawn so
