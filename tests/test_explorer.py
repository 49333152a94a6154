"""The explorer's pages and pictures, without a browser: boards are well-formed SVG that can be set up by
clicking, with the best move outlined; outcomes are said in words; figures agree with oracles; text is
escaped; a bad position is a 400 page, a missing table a 404, a game that cannot be loaded a 503; `tablebase
plot` too."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import unescape
from pathlib import Path
from urllib.parse import quote

import pytest
from explorer_oracles import (
    board_of,
    chomp_click,
    chomp_squares,
    domino_cells,
    links_of,
    marks_of,
    reason_of,
    said_of_move,
    said_of_position,
    tictactoe_clicks,
    wythoff_outcome,
    wythoff_p_positions,
)
from fastapi.testclient import TestClient
from helpers import assert_clean_error
from helpers import tablebase as run

import tablebase
from tablebase.build import build_tables
from tablebase.build.jobs import spec_for
from tablebase.games.shapes import BLUE, RED
from tablebase.http.app import create_app

TICTACTOE = f"{Path(__file__).resolve().parent.parent / 'examples' / 'tictactoe.py'}:TicTacToe"
GAMES = [
    ("chomp", {"rows": 3, "cols": 4}),
    ("nim", {"heaps": 2, "max_heap": 7}),
    ("wythoff", {"max": 12}),
    ("subtraction", {"max": 12, "set": "1,3,4", "misere": True}),  # misère figures beside normal play's
    ("fibonacci-nim", {"max": 10}),
    ("green-hackenbush", {"max_edges": 4}),
    ("hackenbush", {"max_edges": 3, "shape": "tree", "colors": "BRG"}),
    ("hackenbush", {"max_edges": 4}),
    ("domineering", {"max_cells": 5}),
    ("tanhinmin", {"max_card": 3, "max_hand": 2}),
    (TICTACTOE, {}),
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
    with TestClient(create_app(tables[0], games=[TICTACTOE])) as c:  # a game from a file is served when named
        yield c


def page(client, path: str, status: int = 200) -> str:
    response = client.get(path, follow_redirects=False)  # a page at its own URL, not at the end of a redirect
    assert response.status_code == status, (path, response.status_code, response.text[:300])
    return response.text


def moves_of(html: str) -> list[tuple[str, str]]:
    """(outcome class, position) of each move row of a position page, in order."""
    rows = re.findall(r'<tr class="move outcome-(\w)">.*?class="position" href="[^"]*">([^<]*)</a>', html, re.DOTALL)
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
    shown = [page(client, "/"), page(client, f"/tables/{name}"),
             page(client, f"/tables/{name}/position?position=6%209")]
    links = {unescape(link) for html in shown for link in re.findall(r'(?:href|action)="([^"]*)"', html)}
    links |= set(re.findall(r'(?:href|action)="([^"]*)"', page(client, "/tables/nosuch", 404)))
    assert {"/", "/openapi.json", f"/tables/{name}", f"/tables/{name}/position"} <= links
    assert [link for link in links if link not in ("/", "/openapi.json") and not link.startswith("/tables/")] == []
    # The folder is shared with other test files, whose tables' games this server is not told to trust (a 503
    # there): the links followed are those of the tables built here. The form's action needs a position.
    ours = set(tables[1].values())
    for link in links - {"/tables/nosuch", f"/tables/{name}/position"}:
        if not link.startswith("/tables/") or link.split("?")[0].split("/")[2] in ours:
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


def test_a_bad_position_is_a_400_page_a_missing_table_404_and_a_game_not_loaded_503(client, tables, tmp_path,
                                                                                    scheduler):
    """Each page says what the API says, with its status: the reason of the API's 400 on a "Bad position"
    page, 404 "Not found" for a table that is not there, 503 for a table whose game cannot be loaded."""
    name = tables[1][("chomp", (("cols", 4), ("rows", 3)))]
    for bad in ["9 9", "x", "1 2", "3 3 3 3"]:
        api = client.get(f"/tables/{name}/lookup", params={"position": bad})
        assert api.status_code == 400, bad
        for path in (f"/tables/{name}/position", f"/tables/{name}/board.svg"):
            html = client.get(path, params={"position": bad})
            assert html.status_code == 400, (path, bad)
            assert "<title>bad position ·" in html.text and '<h1 id="error-title">Bad position</h1>' in html.text
            assert reason_of(html.text) == api.json()["detail"], (path, bad)
    html = page(client, "/tables/nosuch", 404)
    assert "<h1 id=\"error-title\">Not found</h1>" in html and "no table &#39;nosuch&#39;" in html and name in html
    page(client, "/tables/nosuch/position?position=1", 404)
    page(client, "/tables/nosuch/board.svg?position=1", 404)
    html = page(client, f"/tables/{name}/position?position=4%202&move=(9,9)", 400)
    assert '<h1 id="error-title">Bad move</h1>' in html and "(9,9)" in reason_of(html)

    game = tmp_path / "scripted.py"  # a table whose game file is then taken away
    game.write_text(SCRIPTED)
    spec = spec_for(f"{game}:Scripted", {"heap": 4})
    list(build_tables([spec], tmp_path / "db", scheduler=scheduler, quiet=True))
    game.unlink()
    with TestClient(create_app(tmp_path / "db")) as gone:
        api = gone.get(f"/tables/{spec.name}/lookup", params={"position": "3"})
        assert api.status_code == 503
        for path in (f"/tables/{spec.name}", f"/tables/{spec.name}/position?position=3"):
            html = page(gone, path, 503)
            assert '<h1 id="error-title">Game unavailable</h1>' in html and reason_of(html) == api.json()["detail"]


def test_markup_in_a_games_positions_is_escaped(tmp_path, scheduler):
    game = tmp_path / "scripted.py"
    game.write_text(SCRIPTED)
    spec = spec_for(f"{game}:Scripted", {"heap": 6})
    list(build_tables([spec], tmp_path / "db", scheduler=scheduler, quiet=True))
    with TestClient(create_app(tmp_path / "db", games=[f"{game}:Scripted"])) as client:
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


# -- the board: set up by clicking, moves outlined, large enough; the outcome in words; the figures -----------
def looked_up(client, name: str, position: str) -> dict:
    answer = client.get(f"/tables/{name}/lookup", params={"position": position})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_chomp_board_is_set_up_by_clicking_a_square(client, tables):
    name = tables[1][("chomp", (("cols", 4), ("rows", 3)))]
    for position in ["4 2 1", "1", "4 4 4", "2 2", "3"]:
        lengths = [int(t) for t in position.split()]
        links = links_of(board_of(page(client, f"/tables/{name}/position?position={quote(position)}")))
        expected = {}
        for r in range(3):
            for c in range(4):
                after = chomp_click(lengths, r, c, 3)
                if after is not None and after != lengths:
                    expected[f"{r} {c}"] = " ".join(map(str, after))
        assert links == expected, position
    for target in expected.values():  # each link is a page of the table
        assert page(client, f"/tables/{name}/position?position={quote(target)}").count("<h1") == 1


def test_a_nim_heap_is_resized_by_clicking_a_token_or_above_it_within_the_table(client, tables):
    name = tables[1][("nim", (("heaps", 2), ("max_heap", 7)))]
    for a, b in [(3, 5), (0, 7), (1, 1), (0, 0)]:
        links = links_of(board_of(page(client, f"/tables/{name}/position?position={a}%20{b}")))
        offered = {tuple(sorted(int(t) for t in p.split())) for p in links.values()}
        expected = set()
        for heap, other in ((a, b), (b, a)):  # a click sets a heap to 1..n-1 (a token), n-1 (the top one), n+1
            for size in {*range(1, heap), heap - 1, heap + 1} - {-1, heap}:
                if size <= 7:
                    expected.add(tuple(sorted((size, other))))
        expected.discard(tuple(sorted((a, b))))
        assert offered == expected, (a, b)
        assert (8, b) not in offered and (a, 8) not in offered  # past the largest heap: not offered


def test_a_grid_cycles_a_cell_through_its_pieces_where_the_table_holds_the_board(client, tables):
    """Domineering: '.' and '#', a board offered only if the table holds each of its regions (none larger is
    a click away); Tic-tac-toe: '.', 'X', 'O', the next the table holds; Hackenbush: no links."""
    domineering = tables[1][("domineering", (("max_cells", 5),))]
    for position in ["..#|...", "..|..", "....."]:
        rows = position.split("|")
        links = links_of(board_of(page(client, f"/tables/{domineering}/position?position={quote(position)}")))
        expected = {}
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                edited = "|".join(x[:c] + ".#"[cell == "."] + x[c + 1:] if i == r else x for i, x in enumerate(rows))
                if edited.count(".") <= 5:  # its regions are the table's (at most 5 cells): no search
                    expected[f"{r} {c}"] = looked_up(client, domineering, edited)["position"]
        assert links == expected, position
    tictactoe = tables[1][(TICTACTOE, ())]
    for position in ["X..|.O.|...", "...|...|...", "XX.|OO.|X..", "XXX|OO.|..."]:
        links = links_of(board_of(page(client, f"/tables/{tictactoe}/position?position={quote(position)}")))
        assert links == tictactoe_clicks(position), position
    hackenbush = tables[1][("hackenbush", (("max_edges", 4),))]
    assert links_of(board_of(page(client, f"/tables/{hackenbush}/position?position=BRB"))) == {}


def test_the_best_move_is_outlined_on_the_board_and_any_move_on_asking(client, tables):
    chomp = tables[1][("chomp", (("cols", 4), ("rows", 3)))]
    row = looked_up(client, chomp, "4 3 1")
    best = next(m for m in row["moves"] if m["move"] == row["best_move"])
    bitten = chomp_squares([4, 3, 1]) - chomp_squares([int(t) for t in best["position"].split()])
    marks = marks_of(board_of(page(client, f"/tables/{chomp}/position?position=4%203%201")))
    assert {c for _, _, cells in marks for c in cells} == {f"{r} {c}" for r, c in bitten}
    other = row["moves"][-1]
    html = page(client, f"/tables/{chomp}/position?position=4%203%201&move={quote(other['move'])}")
    bitten = chomp_squares([4, 3, 1]) - chomp_squares([int(t) for t in other["position"].split()])
    assert {c for _, _, cells in marks_of(board_of(html)) for c in cells} == {f"{r} {c}" for r, c in bitten}
    assert f"the move, {other['move']}." in unescape(html) and 'class="shown"' in html

    nim = tables[1][("nim", (("heaps", 2), ("max_heap", 7)))]
    for move, heap, taken in [("5->2", 1, {2, 3, 4}), ("3->0", 0, {0, 1, 2})]:
        html = page(client, f"/tables/{nim}/position?position=3%205&move={quote(move)}")
        assert marks_of(board_of(html)) == [(m[0], False, {f"token {heap} {t}" for t in taken})
                                            for m in marks_of(board_of(html))]

    domineering = tables[1][("domineering", (("max_cells", 5),))]
    row = looked_up(client, domineering, "..#|...")
    marks = marks_of(board_of(page(client, f"/tables/{domineering}/position?position={quote('..#|...')}")))
    assert sorted(marks) == sorted([(BLUE, False, domino_cells(row["best_left"])),
                                    (RED, True, domino_cells(row["best_right"]))])
    right = [m for m in row["moves"] if m["side"] == "Right"][-1]
    html = page(client, f"/tables/{domineering}/position?position={quote('..#|...')}&move={right['move']}&side=Right")
    assert marks_of(board_of(html)) == [(RED, True, domino_cells(right["move"]))]
    assert f"Right's move, {right['move']}." in unescape(html)


def test_the_outcome_and_each_move_are_said_in_words(client, tables):
    with tablebase.open(tables[0]) as tb:
        picked = []
        for (game, params), name in tables[1].items():
            if game in ("wythoff", "fibonacci-nim", "green-hackenbush"):
                continue
            for outcome in ("N", "P", "L", "R", "D"):
                found = tb.sql(f"SELECT position FROM {name} WHERE outcome = '{outcome}' ORDER BY key DESC LIMIT 1")
                picked += [(name, p) for p in found.column(0).to_pylist()]
    assert len(picked) >= 20
    for name, position in picked:
        row = looked_up(client, name, position)
        html = page(client, f"/tables/{name}/position?position={quote(position)}")
        said = unescape(re.search(r'<p class="headline" id="verdict-outcome">(.*?)</p>', html).group(1))
        assert said == said_of_position(row), (name, position)
        if "misere_outcome" in row:
            soon = "at once" if row["misere_remoteness"] == 0 else f"in {row['misere_remoteness']} move" + (
                "s" if row["misere_remoteness"] != 1 else "")
            assert "In misère play (a player who cannot move wins), the player to move " + \
                ("wins " if row["misere_outcome"] == "N" else "loses ") + soon + "." in unescape(html)
        shown = [unescape(s) for s in re.findall(r'<td class="said">(.*?)</td>', html)]
        assert shown == [said_of_move(m) for m in row["moves"][:len(shown)]], (name, position)


def test_boards_are_large_enough_to_read_and_the_regions_of_a_sum_smaller(client, tables):
    for name in tables[1].values():
        with tablebase.open(tables[0]) as tb:
            position = tb.sql(f"SELECT position FROM {name} ORDER BY level DESC, key LIMIT 1").column(0)[0].as_py()
        board = board_of(page(client, f"/tables/{name}/position?position={quote(position)}"))
        assert max(float(board.get("width")), float(board.get("height"))) >= 300, (name, position)
    domineering = tables[1][("domineering", (("max_cells", 5),))]
    html = page(client, f"/tables/{domineering}/position?position={quote('..#...|..#...')}")
    regions = [ET.fromstring(r) for r in re.findall(r"<div>(<svg.*?</svg>)</div>", html, re.DOTALL)]
    assert len(regions) == 2
    for region in regions:
        assert max(float(region.get("width")), float(region.get("height"))) <= 200


def test_the_figures_shown_are_the_tables_own_and_a_search_is_said_in_words(client, tables):
    with tablebase.open(tables[0]) as tb:
        for name in tables[1].values():
            columns = set(tb.sql(f"SELECT * FROM {name} LIMIT 0").column_names)
            if "value_id" in columns:
                columns |= set(tb.sql(f"SELECT * FROM {name}_values LIMIT 0").column_names)
            position = tb.sql(f"SELECT position FROM {name} LIMIT 1").column(0)[0].as_py()
            html = page(client, f"/tables/{name}/position?position={quote(position)}")
            shown = re.findall(r'<td id="figure-(\w+)">', html)
            assert shown and set(shown) <= columns - {"key", "position", "value_id", "id"}, (name, shown)
    domineering = tables[1][("domineering", (("max_cells", 5),))]
    html = page(client, f"/tables/{domineering}/position?position={quote('...|...')}")  # 6 cells: searched
    shown = re.findall(r'<td id="figure-(\w+)">', html)
    assert "searched" not in shown and "regions" not in shown and "outcome" in shown
    assert "valued by search" in html
