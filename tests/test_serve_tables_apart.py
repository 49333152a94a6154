"""No request waits for another table's loading: while one table's index or statistics are being loaded (held
there by the test), another table's probe and page are answered.

A real server (uvicorn in a thread, over TCP). The loading of table A is held
by wrapping the real ``Tablebase._rows`` and ``Tablebase.stats``: they wait
for the test's event, the statistics inside a real DuckDB query, and then do
their real work. What is asserted is the order of events, never a time.
"""

from __future__ import annotations

import json
import threading

import pytest
from served import get, running

from tablebase.http.app import create_app
from tablebase.query.database import Tablebase

HELD = 60  # seconds a held loading waits at most for the other table's answer before it goes on anyway


@pytest.fixture(scope="module")
def root(built):
    root, _ = built("chomp", rows=4, cols=5)
    built("nim", heaps=3, max_heap=6, partition_rows=7)
    return root


class Held:
    """Table A's loading, held until the other table has been answered (or, if it never is, for HELD seconds)."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.entered = threading.Event()
        self.answered = threading.Event()

    def hold(self, what: str) -> None:
        self.events.append(f"A {what} began")
        self.entered.set()
        self.answered.wait(HELD)
        self.events.append(f"A {what} ended")

    def meanwhile(self, app, a: str, b: str) -> tuple[tuple[int, bytes], tuple[int, bytes]]:
        """The answers to ``b`` and to ``a``, ``b`` asked for once ``a``'s loading is held."""
        with running(app) as base:
            first: list = []
            thread = threading.Thread(target=lambda: first.append(get(base + a)), daemon=True)
            thread.start()
            assert self.entered.wait(60)
            second = get(base + b)
            self.events.append("B answered")
            self.answered.set()
            thread.join(60)
        return second, first[0]


def test_a_probe_is_answered_while_another_tables_index_loads(root, monkeypatch):
    held, index = Held(), Tablebase._rows

    def slow_index(self, table):
        if table == "chomp_4x5" and not held.entered.is_set():
            held.hold("index")
        return index(self, table)

    monkeypatch.setattr(Tablebase, "_rows", slow_index)
    (status, body), (first, _) = held.meanwhile(create_app(root), "/tables/chomp_4x5/probe?position=5%205%202",
                                                "/tables/nim_3x6/probe?position=1%202%203")
    assert held.events == ["A index began", "B answered", "A index ended"]
    assert status == 200 and json.loads(body)["grundy"] == 1 ^ 2 ^ 3
    assert first == 200  # A, once loaded, answers too


def test_a_tables_page_is_answered_while_another_tables_statistics_are_read(root, monkeypatch):
    """Table A's statistics are held inside a DuckDB query; table B's page, read for the first time, runs its own
    statistics in DuckDB meanwhile (DuckDB refuses two calls at once on one connection: each has a cursor)."""
    held, stats = Held(), Tablebase.stats

    def slow_stats(self, table):
        if table == "chomp_4x5" and not held.entered.is_set():
            self._sql_session.con.create_function("held_here", lambda: held.hold("statistics") or 1, [], "INTEGER",
                                            side_effects=True)
            self.sql("SELECT held_here()")
        return stats(self, table)

    monkeypatch.setattr(Tablebase, "stats", slow_stats)
    (status, body), first = held.meanwhile(create_app(root), "/tables/chomp_4x5", "/tables/nim_3x6")
    assert held.events == ["A statistics began", "B answered", "A statistics ended"]
    assert status == 200 and b"<h1>nim_3x6</h1>" in body and b'class="chart"' in body
    assert first[0] == 200 and b"<h1>chomp_4x5</h1>" in first[1]
