"""The server's searches beyond a table (a Domineering board larger than its parts) are bounded: a time and
memory budget a request, a 503 in one line past it, a search that stops once its client has gone or the
server is told to stop, and no race between searches side by side. A server stopped by SIGTERM exits and
removes its SQL folder.

Servers run in this process (uvicorn in a thread) where a test needs to bound or watch them, and as
``tablebase serve`` where the test sends it a signal.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest
from served import get, running
from test_distributed import free_port

from tablebase.http.app import create_app
from tablebase.kinds import Bounds

HUGE = "|".join(["." * 15] * 15)  # 225 empty cells: no search of it ends
# Boards beyond a table of 6 cells, each searched in well under a second, each with parts of its own.
BOARDS = ["....|....|....|....", "...|...|...|...|...", "......|......|....", ".....|.....|.....",
          "..#..|.....|.....|..#..", "......|...#..|......", ".#...|.....|.....|...#."]


@pytest.fixture(scope="module")
def table(built):
    return built("domineering", max_cells=6)


def _path(table: str, verb: str, position: str) -> str:
    return f"/tables/{table}/{verb}?position={urllib.parse.quote(position)}"


def test_a_search_past_its_budget_is_a_503_in_one_line(table):
    root, name = table
    with running(create_app(root, search=Bounds(seconds=1.0, memory=2**30))) as base:
        began = time.monotonic()
        status, body = get(base + _path(name, "probe", HUGE))
        assert status == 503 and time.monotonic() - began < 10, (status, body)
        said = json.loads(body)["detail"]
        assert "\n" not in said and "time limit of 1 s" in said, said
        status, body = get(base + _path(name, "position", HUGE))  # the page says so too
        assert status == 503 and b"time limit" in body
    with running(create_app(root, search=Bounds(seconds=60.0, memory=4 * 2**20))) as base:
        status, body = get(base + _path(name, "lookup", HUGE))
        assert status == 503 and "memory bound" in json.loads(body)["detail"], body
        assert get(base + _path(name, "lookup", BOARDS[0]))[0] == 200  # a search within the budget answers


def test_a_search_stops_when_its_client_leaves(table):
    root, name = table
    with running(create_app(root, search=Bounds(seconds=300.0, memory=2**34))) as base:
        host, port = base.removeprefix("http://").split(":")
        client = socket.create_connection((host, int(port)))
        client.sendall(f"GET {_path(name, 'probe', HUGE)} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        busy = _cpu_over(2.0)
        client.close()
        time.sleep(1.0)
        idle = _cpu_over(2.0)
    assert busy > 0.4, busy  # the search ran while the client waited (on a core shared with others)
    assert idle < 0.2, idle  # and stopped once it left


def _cpu_over(seconds: float) -> float:
    """This process's CPU seconds (every thread's) over ``seconds`` of wall time."""
    before = time.process_time()
    time.sleep(seconds)
    return time.process_time() - before


def test_searches_side_by_side_answer_as_one_alone(table):
    """Seven searches at once, threads switched every few microseconds so that they meet inside each other's
    additions to the algebra's tables: every answer is a 200 with the value each board has alone."""
    root, name = table
    interval = sys.getswitchinterval()
    with running(create_app(root)) as base:
        sys.setswitchinterval(1e-5)
        try:
            with ThreadPoolExecutor(len(BOARDS)) as pool:
                answers = list(pool.map(lambda b: get(base + _path(name, "lookup", b)), BOARDS))
        finally:
            sys.setswitchinterval(interval)
    assert [status for status, _ in answers] == [200] * len(BOARDS), [b[:200] for _, b in answers]
    alone = subprocess.run([sys.executable, "-c", "import json, sys, tablebase; tb = tablebase.open(sys.argv[1]); "
                            "print(json.dumps([tb.lookup(sys.argv[2], b)['value'] for b in sys.argv[3:]]))",
                            root, name, *BOARDS], capture_output=True, text=True, check=True)
    assert [json.loads(body)["value"] for _, body in answers] == json.loads(alone.stdout)
    assert all(json.loads(body)["searched"] for _, body in answers)


def test_sigterm_stops_the_server_and_removes_its_sql_folder(table, tmp_path):
    root, name = table
    port = free_port()
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    server = subprocess.Popen([sys.executable, "-m", "tablebase", "serve", "--db", root, "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if get(base + "/health", timeout=5)[0] == 200:
                    break
            except OSError:
                pass
            assert server.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        assert get(base + f"/tables/{name}")[0] == 200  # its statistics: SQL, in a private folder
        assert [p.name.startswith("tablebase-sql-") for p in tmp_path.iterdir()] == [True]
        waiting = threading.Thread(target=lambda: get(base + _path(name, "probe", HUGE), timeout=60), daemon=True)
        waiting.start()
        time.sleep(1.0)  # the search is under way
        stopped = time.monotonic()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        assert time.monotonic() - stopped < 10
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert list(tmp_path.iterdir()) == [], server.stderr.read().decode()
