"""The HTTP API, over real HTTP on loopback, served by `tablebase serve` in its own process."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from test_distributed import free_port


def call(base: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.fixture(scope="module")
def server(built):
    root, _ = built("chomp", rows=4, cols=5)
    built("nim", heaps=3, max_heap=6, partition_rows=7)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablebase", "serve", "--db", str(root), "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if call(base, "/health")[0] == 200:
                break
        except OSError:
            pass
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else "timeout"
        time.sleep(0.2)
    yield base
    proc.terminate()
    proc.wait(timeout=30)


def q(position: str) -> str:
    return urllib.parse.quote(position)


def test_tables_and_openapi(server):
    status, tables = call(server, "/tables")
    assert status == 200 and {t["table"] for t in tables} >= {"chomp_4x5", "nim_3x6"}
    status, spec = call(server, "/openapi.json")
    assert status == 200
    assert set(spec["paths"]) == {"/health", "/tables", "/tables/{table}/lookup", "/tables/{table}/probe",
                                  "/tables/{table}/lookup-many", "/tables/{table}/line"}  # the JSON API only


def test_lookup_probe_and_batch_agree(server):
    status, row = call(server, f"/tables/chomp_4x5/lookup?position={q('5 5 2')}")
    assert status == 200 and row["position"] == "5 5 2" and len(row["moves"]) == 11
    status, probed = call(server, f"/tables/chomp_4x5/probe?position={q('5,5,2')}")
    assert status == 200 and probed["grundy"] == row["grundy"] and probed["key"] == row["key"]
    positions = [m["position"] for m in row["moves"]]
    status, batch = call(server, "/tables/chomp_4x5/lookup-many", {"positions": positions})
    assert status == 200
    assert [(r["position"], r["grundy"], r["remoteness"]) for r in batch["rows"]] == [
        (m["position"], m["grundy"], m["remoteness"]) for m in row["moves"]
    ]


def test_bad_requests_get_clear_4xx(server):
    status, body = call(server, "/tables/nosuch/probe?position=1")
    assert status == 404 and "nosuch" in body["detail"]
    status, body = call(server, f"/tables/chomp_4x5/probe?position={q('2 3')}")
    assert status == 400 and "non-increasing" in body["detail"]
    status, body = call(server, f"/tables/chomp_4x5/lookup?position={q('9 9')}")
    assert status == 400 and "outside" in body["detail"]
    status, body = call(server, "/tables/chomp_4x5/probe")
    assert status == 422
    status, body = call(server, "/tables/nim_3x6/lookup-many", {"positions": ["1 2 3", "x"]})
    assert status == 400 and "'x'" in body["detail"]
    status, body = call(server, "/tables/nim_3x6/lookup-many", {"nope": []})
    assert status == 422



def raw_get(base: str, target: str) -> tuple[int, dict[str, str], bytes]:
    """A GET of ``target`` sent byte for byte as written (no client quoting it), its redirects not followed."""
    connection = http.client.HTTPConnection(urllib.parse.urlsplit(base).netloc, timeout=30)
    try:
        connection.putrequest("GET", target, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_pages_are_under_tables_and_their_old_urls_redirect_there(server):
    """Over real HTTP: a page's old URL under /table/ is a 308 to the same URL under /tables/ with its query
    string as the client wrote it (%20, + and a bare | untouched), and the new URL is the page itself."""
    old = "/table/chomp_4x5/position?position=5%205+2&from=a%20link|b"
    status, headers, _ = raw_get(server, old)
    assert (status, headers.get("location")) == (308, "/tables/chomp_4x5/position?position=5%205+2&from=a%20link|b")
    status, headers, body = raw_get(server, headers["location"])
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b'<h1 id="position-title" class="position">5 5 2</h1>' in body
    status, headers, _ = raw_get(server, "/table/chomp_4x5")
    assert (status, headers.get("location")) == (308, "/tables/chomp_4x5")
    status, _, body = raw_get(server, "/tables/chomp_4x5")
    assert status == 200 and b"<h1>chomp_4x5</h1>" in body
    status, _, body = raw_get(server, "/tables/chomp_4x5/board.svg?position=5+5+2")
    assert status == 200 and body.startswith(b"<svg")

def test_the_name_uvicorns_workers_import_is_the_apps_factory():
    """Several workers are started from a name, which nothing else checks until a server runs with --workers."""
    from uvicorn.importer import import_from_string

    from tablebase.http.app import FACTORY, app_from_environment

    assert import_from_string(FACTORY) is app_from_environment


def started(*args: str) -> tuple[subprocess.Popen, str]:
    """`tablebase serve ARGS` in a process of its own, and the first line it says (once it has said it)."""
    proc = subprocess.Popen([sys.executable, "-m", "tablebase", "serve", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return proc, proc.stderr.readline()


def test_serve_says_where_it_serves_once_it_listens(built):
    root, _ = built("chomp", rows=4, cols=5)
    port = free_port()
    proc, said = started("--db", str(root), "--port", str(port))
    try:
        assert said == f"serving {root} on http://127.0.0.1:{port} (API description at /openapi.json)\n"
        assert call(f"http://127.0.0.1:{port}", "/health") == (200, {"status": "ok"})  # no retry: it listens
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serve_with_worker_processes_answers_on_its_port(built):
    root, _ = built("chomp", rows=4, cols=5)
    port = free_port()
    proc, said = started("--db", str(root), "--port", str(port), "--workers", "2")
    try:
        assert said.startswith(f"serving {root} on http://127.0.0.1:{port} ")
        status, tables = call(f"http://127.0.0.1:{port}", "/tables")
        assert status == 200 and "chomp_4x5" in {t["table"] for t in tables}
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_serve_refuses_a_folder_that_is_no_tablebase_and_a_busy_port_in_one_line(built, tmp_path):
    from helpers import assert_clean_error
    from helpers import tablebase as run

    root, _ = built("chomp", rows=4, cols=5)
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("not a folder")
    for db, words in [(tmp_path / "missing", ["no tablebase folder", "missing"]),
                      (tmp_path / "file", ["no tablebase folder"]), (tmp_path / "empty", ["no tables in", "empty"])]:
        result = run("serve", "--db", db, "--port", free_port())
        assert_clean_error(result, *words)
        assert "serving" not in result.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("serve", "--db", root, "--port", port)
    assert_clean_error(result, "cannot listen", str(port), "in use")
    assert "serving" not in result.stderr
    assert_clean_error(run("serve", "--db", root, "--host", "no-such-host.invalid"), "--host", "no-such-host.invalid")
    assert_clean_error(run("serve", "--db", root, "--workers", "0"), "--workers")
