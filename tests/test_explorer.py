"""The explorer's pages and pictures, without a browser: boards are well-formed SVG, figures agree with
oracles, text is escaped, and unknown tables and positions are 404 with a reason; `tablebase plot` too."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import unescape
from urllib.parse import quote

import pytest
from explorer_oracles import wythoff_outcome, wythoff_p_positions
from fastapi.testclient import TestClient
from helpers import assert_clean_error
from helpers import tablebase as run

import tablebase
from tablebase.build import build_tables
from tablebase.build.jobs import spec_for
from tablebase.http.app import create_app

GAMES = [
    ("chomp", {"rows": 3, "cols": 4}),
    ("nim", {"heaps": 2, "max_heap": 7}),
    ("wythoff", {"max": 12}),
    ("subtraction", {"max": 12, "set": "1,3,4"}),
    ("fibonacci-nim", {"max": 10}),
    ("green-hackenbush", {"max_edges": 4}),
    ("hackenbush", {"max_edges": 3, "shape": "tree", "colors": "BRG"}),
    ("hackenbush", {"max_edges": 4}),
    ("domineering", {"max_cells": 5}),
    ("tanhinmin", {"max_card": 3, "max_hand": 2}),
]

SCRIPTED = '''
from tablebase.games import ImpartialGame, Option


class Scripted(ImpartialGame):
    """Take one or two tokens; positions are spelt with markup in them."""

    name = "scripted"
    notation = "<script>n</script>"
    options = (Option("heap", int, "tokens"),)

    def __init__(self, **params):
        super().__init__(**params)
        self.heap = self.int_param("heap", 0, 50)

    def start_positions(self):
        return [self.heap]

    def level(self, n):
        return n

    def moves(self, n):
        return [(t, n - t) for t in (1, 2) if t <= n]

    def move_name(self, t):
        return f"<b>-{t}</b>"

    def format(self, n):
        return f"<script>{n}</script>"

    def read(self, text):
        digits = "".join(c for c in text if c.isdigit())
        if not digits or int(digits) > self.heap:
            raise self.position_error(text, "expected a heap of the table")
        return int(digits)
'''


@pytest.fixture(scope="module")
def tables(built):
    names = {}
    for game, params in GAMES:
        root, name = built(game, **params)
        names[(game, tuple(sorted(params.items())))] = name
    return root, names


@pytest.fixture(scope="module")
def client(tables):
    with TestClient(create_app(tables[0])) as c:
        yield c


def page(client, path: str, status: int = 200) -> str:
    response = client.get(path, follow_redirects=False)  # a page at its own URL, not at the end of a redirect
    assert response.status_code == status, (path, response.status_code, response.text[:300])
    return response.text


def moves_of(html: str) -> list[tuple[str, str]]:
    """(outcome class, position) of each move row of a position page, in order."""
    rows = re.findall(r'<tr class="move outcome-(\w)">.*?class="position" href="[^"]*">([^<]*)</a>', html, re.S)
    return [(outcome, unescape(position)) for outcome, position in rows]


def test_every_game_draws_well_formed_svg(client, tables):
    root, names = tables
    with tablebase.open(root) as tb:
        for name in names.values():
            positions = tb.sql(f"SELECT position FROM {name} USING SAMPLE 5 ROWS (reservoir, 7)").column(0).to_pylist()
            for position in positions:
                svg = page(client, f"/tables/{name}/board.svg?position={quote(position)}")
                drawn = ET.fromstring(svg)
                assert drawn.tag == "{http://www.w3.org/2000/svg}svg" and len(drawn) > 1, (name, position)
                html = page(client, f"/tables/{name}/position?position={quote(position)}")
                assert '<div id="board"><svg' in html


def test_the_pages_list_tables_and_their_statistics(client, tables):
    _, names = tables
    listing = page(client, "/")
    for name in names.values():
        assert f'href="/tables/{name}"' in listing
    chomp = page(client, "/tables/" + names[("chomp", (("cols", 4), ("rows", 3)))])
    assert 'class="chart"' in chomp and "a random P-position" in chomp and 'id="position"' in chomp
    domineering = page(client, "/tables/" + names[("domineering", (("max_cells", 5),))])
    assert "the hottest position" in domineering


def test_every_link_of_the_pages_is_a_url_under_tables_that_answers(client, tables):
    """The pages and the JSON API share one scheme: the pages link to /tables/..., never to the old /table/...,
    and each link is answered at once, without a redirect."""
    name = tables[1][("wythoff", (("max", 12),))]
    shown = [page(client, "/"), page(client, f"/tables/{name}"), page(client, f"/tables/{name}/position?position=6%209")]
    links = {unescape(link) for html in shown for link in re.findall(r'(?:href|action)="([^"]*)"', html)}
    links |= set(re.findall(r'(?:href|action)="([^"]*)"', page(client, "/tables/nosuch", 404)))
    assert {"/", "/openapi.json", f"/tables/{name}", f"/tables/{name}/position"} <= links
    assert [link for link in links if link not in ("/", "/openapi.json") and not link.startswith("/tables/")] == []
    for link in links - {"/tables/nosuch", f"/tables/{name}/position"}:  # the form's action needs a position
        assert client.get(link, follow_redirects=False).status_code == 200, link


def test_the_old_page_urls_redirect_for_good_to_the_same_urls_under_tables(client, tables):
    """The pages were first at /table/...: each such URL is a permanent redirect (308) to the same URL under
    /tables/, its query string exactly as sent (spaces written two ways, bare |), and there is the page."""
    name = tables[1][("domineering", (("max_cells", 5),))]
    query = "position=..%23|...&moves=all&from=an%20old+link|kept"
    for rest in [name, f"{name}?{query}", f"{name}/position?{query}", f"{name}/board.svg?{query}", "nosuch"]:
        moved = client.get(f"/table/{rest}", follow_redirects=False)
        assert (moved.status_code, moved.headers.get("location")) == (308, f"/tables/{rest}"), rest
    followed = client.get(f"/table/{name}/position?{query}")
    assert followed.status_code == 200 and followed.url.path == f"/tables/{name}/position"
    assert '<h1 id="position-title" class="position">..#|...</h1>' in followed.text
    board = page(client, f"/tables/{name}/board.svg?{query}")
    assert client.get(f"/table/{name}/board.svg?{query}").text == board and board.startswith("<svg")
    assert client.get("/table/nosuch").status_code == 404
    assert client.get(f"/table/{name}/lookup?position=1", follow_redirects=False).status_code == 404  # no old page


def test_wythoff_moves_agree_with_the_golden_ratio(client, tables):
    top = 12
    name = tables[1][("wythoff", (("max", top),))]
    for a in range(0, top + 1, 3):
        for b in range(a, top + 1, 2):
            html = page(client, f"/tables/{name}/position?position={a}%20{b}")
            outcome = re.search(r'id="figure-outcome"><span class="badge-(\w)">', html).group(1)
            assert outcome == wythoff_outcome(f"{a} {b}", top)
            moves = moves_of(html)
            assert [o for o, p in moves] == [wythoff_outcome(p, top) for _, p in moves]
            if outcome == "N":  # best first: a move to a P-position leads
                assert moves[0][0] == "P"
    assert {(0, 0), (1, 2), (3, 5)} <= wythoff_p_positions(top)  # the oracle itself, by hand


def test_nim_grundy_values_are_xor(client, tables):
    name = tables[1][("nim", (("heaps", 2), ("max_heap", 7)))]
    for a, b in [(0, 0), (3, 5), (7, 7), (2, 6)]:
        html = page(client, f"/tables/{name}/position?position={a}%20{b}")
        assert re.search(r'id="figure-grundy">(\d+)<', html).group(1) == str(a ^ b)


def test_a_domineering_board_larger_than_the_table_is_a_sum_of_regions(client, tables):
    name = tables[1][("domineering", (("max_cells", 5),))]
    html = page(client, f"/tables/{name}/position?position={quote('..#...|..#...')}")
    assert "The sum of its stored regions" in html
    assert html.count('<div><svg') == 2  # one picture per region


def test_unknown_tables_and_positions_are_404_with_a_reason(client, tables):
    name = tables[1][("chomp", (("cols", 4), ("rows", 3)))]
    html = page(client, "/tables/nosuch", 404)
    assert "no table &#39;nosuch&#39;" in html and name in html
    html = page(client, f"/tables/{name}/position?position=9%209", 404)
    assert "bad position" in html
    page(client, "/tables/nosuch/position?position=1", 404)
    page(client, f"/tables/{name}/board.svg?position=x", 404)


def test_markup_in_a_games_positions_is_escaped(tmp_path, scheduler):
    game = tmp_path / "scripted.py"
    game.write_text(SCRIPTED)
    spec = spec_for(f"{game}:Scripted", {"heap": 6})
    list(build_tables([spec], tmp_path / "db", scheduler=scheduler, quiet=True))
    with TestClient(create_app(tmp_path / "db")) as client:
        html = page(client, f"/tables/{spec.name}/position?position=6")
        assert "<script>" not in html and "<b>" not in html
        assert "&lt;script&gt;6&lt;/script&gt;" in html and "&lt;b&gt;-1&lt;/b&gt;" in html
        ET.fromstring(page(client, f"/tables/{spec.name}/board.svg?position=6"))  # the fallback: text in a box
        assert "<script>" not in page(client, f"/tables/{spec.name}")


def test_plot_draws_pictures_and_refuses_bad_requests_in_one_line(tables, tmp_path):
    root, names = tables
    wythoff, domineering = names[("wythoff", (("max", 12),))], names[("domineering", (("max_cells", 5),))]
    chomp = names[("chomp", (("cols", 4), ("rows", 3)))]
    for table, kind, out, extra in [(wythoff, "grundy-map", "w.png", []), (chomp, "p-positions", "c.svg", []),
                                    (domineering, "outcomes", "o.svg", []),
                                    (domineering, "position", "d.png", ["--position", "..#|..."])]:
        result = run("plot", "--db", root, table, kind, "--out", tmp_path / out, *extra)
        assert result.returncode == 0, result.stderr
    assert (tmp_path / "w.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "d.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ET.parse(tmp_path / "c.svg")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert_clean_error(run("plot", "--db", root, "nosuch", "outcomes", "--out", tmp_path / "x.png"), "nosuch")
    assert_clean_error(run("plot", "--db", root, wythoff, "nosuch", "--out", tmp_path / "x.png"), "unknown picture")
    assert_clean_error(run("plot", "--db", root, domineering, "grundy-map", "--out", tmp_path / "x.png"),
                       "does not fit", "grundy")
    assert_clean_error(run("plot", "--db", root, domineering, "p-positions", "--out", tmp_path / "x.png"),
                       "does not fit")
    assert_clean_error(run("plot", "--db", root, wythoff, "grundy-map", "--out", tmp_path / "x.gif"), ".png or .svg")
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written, not even a temporary file


def test_a_long_list_of_moves_is_cut_with_a_link_to_all(client, tables, monkeypatch):
    from tablebase.http import pages

    monkeypatch.setattr(pages, "MOVES_SHOWN", 5)
    name = tables[1][("wythoff", (("max", 12),))]
    every = 6 + 9 + 6  # from (6, 9): take from either heap, or the same from both
    cut = page(client, f"/tables/{name}/position?position=6%209")
    assert len(moves_of(cut)) == 5 and f"The 5 best of {every} moves" in cut
    whole = page(client, f"/tables/{name}/position?position=6%209&moves=all")
    assert len(moves_of(whole)) == every and 'id="more-moves"' not in whole
