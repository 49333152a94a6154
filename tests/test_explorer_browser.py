"""The explorer in a real browser: headless Chromium, driven by selenium, against `tablebase serve` in its own
process: typing a position, following moves, setting a board up by clicking its squares, and outlining a
move on the board. Where Chromium or its driver is not installed they fail, saying what to install (.ci/run
installs them)."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest
from explorer_oracles import chomp_click, domino_cells, wythoff_outcome
from helpers import require
from selenium import webdriver
from test_distributed import free_port

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.slow  # a browser: see conftest.py


@pytest.fixture(autouse=True, scope="module")
def _browser_installed() -> None:
    require(None if CHROMIUM and DRIVER else
            "Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
TOP = 12


@pytest.fixture(scope="module")
def server(built):
    root, _ = built("wythoff", max=TOP)
    built("chomp", rows=3, cols=4)  # in the same folder, before the server opens it
    built("domineering", max_cells=5)
    built("domineering", max_cells=10)  # values enough for a chart of many labels
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tablebase", "serve", "--db", str(root), "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(base + "/health", timeout=5)
            break
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
    yield base
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def _go(browser, element) -> None:
    """Click something that loads a page, and wait until the new page has replaced the old one."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def replaced(_) -> bool:
        try:
            old.is_enabled()
        except WebDriverException:  # stale; or, while the new page comes, "does not belong to the document"
            return True
        return False

    old = browser.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(browser, 30).until(replaced)


def test_type_a_position_and_follow_the_best_move(server, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/")
    _go(browser, browser.find_element(By.LINK_TEXT, f"wythoff_n{TOP}"))
    assert browser.current_url == f"{server}/tables/wythoff_n{TOP}"
    assert browser.find_element(By.TAG_NAME, "h1").text == f"wythoff_n{TOP}"
    assert browser.find_elements(By.CSS_SELECTOR, "svg.chart")
    field = browser.find_element(By.ID, "position")
    field.send_keys("7 4")  # either order: the page shows the table's spelling
    _go(browser, browser.find_element(By.ID, "look-up"))
    assert browser.current_url == f"{server}/tables/wythoff_n{TOP}/position?position=7+4"  # the form's own query
    assert browser.find_element(By.ID, "position-title").text == "4 7"
    assert browser.find_element(By.ID, "figure-outcome").text == wythoff_outcome("4 7", TOP) == "P"
    assert browser.find_element(By.CSS_SELECTOR, "#board svg").is_displayed()

    browser.find_element(By.ID, "position").clear()
    browser.find_element(By.ID, "position").send_keys("5 9")
    _go(browser, browser.find_element(By.ID, "look-up"))
    assert browser.find_element(By.ID, "figure-outcome").text == wythoff_outcome("5 9", TOP) == "N"
    rows = browser.find_elements(By.CSS_SELECTOR, "#moves tr.move")
    shown = [(r.get_attribute("class").split("outcome-")[1], r.find_element(By.CSS_SELECTOR, "a.position").text)
             for r in rows]
    assert [o for o, _ in shown] == [wythoff_outcome(p, TOP) for _, p in shown]
    best = rows[0].find_element(By.CSS_SELECTOR, "a.position")
    target = best.text
    _go(browser, best)
    assert browser.find_element(By.ID, "position-title").text == target
    assert browser.find_element(By.ID, "figure-outcome").text == "P" == wythoff_outcome(target, TOP)
    timing = browser.execute_script("return performance.timing.loadEventEnd - performance.timing.navigationStart")
    assert timing >= 0


def test_an_old_page_url_leads_the_browser_to_the_page_under_tables(server, browser):
    from selenium.webdriver.common.by import By

    query = "position=5%209&from=an%20old+link|kept"
    browser.get(f"{server}/table/wythoff_n{TOP}/position?{query}")
    assert browser.current_url == f"{server}/tables/wythoff_n{TOP}/position?{query}"
    assert browser.find_element(By.ID, "position-title").text == "5 9"


def test_the_pages_style_applies_under_their_content_security_policy(server, browser):
    """The policy forbids everything the pages do not use: their inline style must still apply."""
    from selenium.webdriver.common.by import By

    from tablebase.games.shapes import OUTCOME_COLOURS

    with urllib.request.urlopen(f"{server}/tables/wythoff_n{TOP}/position?position=4%207", timeout=30) as answer:
        assert "default-src 'none'" in answer.headers["content-security-policy"]
    browser.get(f"{server}/tables/wythoff_n{TOP}/position?position=4%207")
    red, green, blue = (int(OUTCOME_COLOURS["P"][i:i + 2], 16) for i in (1, 3, 5))
    badge = browser.find_element(By.CSS_SELECTOR, "#figure-outcome span")
    assert badge.value_of_css_property("background-color") == f"rgba({red}, {green}, {blue}, 1)"
    assert browser.find_element(By.CSS_SELECTOR, "#board svg").size["width"] > 0  # the inline picture is drawn


def test_set_a_chomp_board_up_by_clicking_its_squares(server, browser):
    """Each click on a square of the board is a link to the diagram it sets up; the page then shows it."""
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/tables/chomp_3x4/position?position=4%202%201")
    lengths = [4, 2, 1]
    # Grow a row (4 3 3), cut one (2 2 2), grow one (4 4 2), then bite off the last square of a row (4 3 2).
    for r, c in [(2, 2), (0, 1), (1, 3), (1, 3)]:
        expected = chomp_click(lengths, r, c, 3)
        square = browser.find_element(By.CSS_SELECTOR, f'#board svg a rect[data-cell="{r} {c}"]')
        _go(browser, square)
        lengths = expected
        assert browser.find_element(By.ID, "position-title").text == " ".join(map(str, expected))
    assert lengths == [4, 3, 2]


def test_a_moves_name_outlines_it_on_the_board(server, browser):
    """The moves list's names are links that outline the move on the board, in the mover's colour (Right's
    red and dashed); the best moves are outlined without asking."""
    from selenium.webdriver.common.by import By

    from tablebase.games.shapes import BLUE, RED

    browser.get(f"{server}/tables/domineering_c5/position?position=..%23|...")

    def outlines() -> list[tuple[str, bool, set[str]]]:
        return [(m.get_attribute("stroke"), m.get_attribute("stroke-dasharray") is not None,
                 set(m.get_attribute("data-cells").split(";")))
                for m in browser.find_elements(By.CSS_SELECTOR, "#board svg rect.mark")]

    assert {(colour, dashed) for colour, dashed, _ in outlines()} == {(BLUE, False), (RED, True)}
    rows = browser.find_elements(By.CSS_SELECTOR, "#moves tr.move")
    right = [r for r in rows if r.find_elements(By.TAG_NAME, "td")[1].text == "Right"][-1]
    name = right.find_element(By.CSS_SELECTOR, "a.show-move").text
    _go(browser, right.find_element(By.CSS_SELECTOR, "a.show-move"))
    assert outlines() == [(RED, True, domino_cells(name))]
    assert browser.find_element(By.CSS_SELECTOR, "#board svg rect.mark").is_displayed()
    assert f"Right's move, {name}." in browser.find_element(By.ID, "outlined").text
    assert browser.find_element(By.CSS_SELECTOR, "td.shown").text == name


WIDE_BOARD = ".....|.....|.....|....."  # larger than the table: long values, long positions, 31 moves


def _fits(browser) -> None:
    """The page does not scroll sideways, and no move's name is broken over two lines."""
    from selenium.webdriver.common.by import By

    width = browser.execute_script("return window.innerWidth")
    assert browser.execute_script("return document.documentElement.scrollWidth") <= width
    table = browser.find_element(By.ID, "moves")
    assert table.rect["x"] + table.rect["width"] <= width, (table.rect, width)
    names = browser.find_elements(By.CSS_SELECTOR, "#moves a.show-move")
    assert names and all(browser.execute_script("return arguments[0].getClientRects().length", a) == 1 and
                         a.size["height"] < 2 * a.size["width"] for a in names)


def test_a_moves_table_fits_a_1280_pixel_window_and_move_names_do_not_wrap(server, browser):
    browser.set_window_size(1280, 900)
    try:
        assert browser.execute_script("return window.innerWidth") >= 1200
        for path in (f"/tables/domineering_c5/position?position={WIDE_BOARD}",
                     f"/tables/domineering_c10/position?position={WIDE_BOARD}&moves=all",
                     f"/tables/wythoff_n{TOP}/position?position=11%2012",
                     "/tables/chomp_3x4/position?position=4%204%204"):
            browser.get(server + path)
            _fits(browser)
    finally:
        browser.set_window_size(800, 600)


def test_chart_labels_do_not_overlap(server, browser):
    """The words under each chart's bars, as the browser lays them out: level ones (and the axis's name) side by
    side, slanted ones (where a label is wider than its bar) a line's height apart across their slant and clear
    of the level ones, and all inside the chart."""
    from selenium.webdriver.common.by import By

    browser.set_window_size(1280, 900)
    try:
        browser.get(f"{server}/tables/domineering_c10")
        charts = browser.find_elements(By.CSS_SELECTOR, "svg.chart")
        assert len(charts) >= 3
        slanted_charts = 0
        for chart in charts:
            texts = browser.execute_script(
                "const bars = Array.from(arguments[0].querySelectorAll('rect')).filter(r => r.querySelector('title'));"
                "const base = Math.max(...bars.map(r => r.getBoundingClientRect().bottom));"
                "return Array.from(arguments[0].querySelectorAll('text')).map(t => {"
                "const r = t.getBoundingClientRect(), m = t.getScreenCTM();"
                "return {box: [r.left, r.top, r.right, r.bottom], x: m.e, slant: Math.abs(m.b) > 0.1,"
                "size: parseFloat(getComputedStyle(t).fontSize), under: r.top >= base - 1}; })", chart)
            under = [t for t in texts if t["under"]]
            level = [t["box"] for t in under if not t["slant"]]
            for i, a in enumerate(level):
                assert all(_apart(a, b) for b in level[i + 1:]), (a, level)
            slanted = sorted((t["x"], t["size"]) for t in under if t["slant"])
            slanted_charts += bool(slanted)
            for (x1, size), (x2, _) in zip(slanted, slanted[1:]):
                assert (x2 - x1) * math.sqrt(0.5) >= size, (x1, x2)
            assert all(_apart(t["box"], b) for t in under if t["slant"] for b in level)
            outer = chart.rect
            assert all(outer["y"] <= t["box"][1] and t["box"][3] <= outer["y"] + outer["height"] + 0.5 for t in texts)
        assert slanted_charts  # the values of the nimbers-and-ups chart are too long to stand side by side
    finally:
        browser.set_window_size(800, 600)


def _apart(a: list[float], b: list[float]) -> bool:
    """Whether two boxes (left, top, right, bottom) do not overlap, to half a pixel."""
    return a[2] <= b[0] + 0.5 or b[2] <= a[0] + 0.5 or a[3] <= b[1] + 0.5 or b[3] <= a[1] + 0.5


def test_follow_best_play_to_its_page_and_come_back_along_the_moves_made(server, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/tables/chomp_3x4/position?position=4%204%202")
    _go(browser, browser.find_element(By.ID, "line"))
    assert browser.find_element(By.ID, "line-title").text == "Best play from 4 4 2"
    steps = browser.find_elements(By.CSS_SELECTOR, "li.line-step")
    assert len(steps) >= 3 and all(s.find_element(By.CSS_SELECTOR, "svg").is_displayed() for s in steps)
    _go(browser, browser.find_element(By.ID, "back"))
    assert browser.find_element(By.ID, "position-title").text == "4 4 2"
    # A move taken, then another: the trail leads back to each position on the way.
    for _ in range(2):
        _go(browser, browser.find_element(By.CSS_SELECTOR, "#moves td.to a"))
    trail = browser.find_elements(By.CSS_SELECTOR, "#trail a")
    assert [a.text for a in trail][0] == "4 4 2" and len(trail) == 2
    _go(browser, trail[0])
    assert browser.find_element(By.ID, "position-title").text == "4 4 2"
