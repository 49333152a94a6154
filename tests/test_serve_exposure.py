"""What the server sends, and what it does not: no path of the machine, no third-party host, no input echoed
in a 422, and the security headers on every answer.

The folder holds a table of a game from a file beside it, and a table whose
game file is gone (its errors name the file); every body is searched for the
folder's absolute path and its parent's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tablebase.build import build_tables
from tablebase.build.jobs import spec_for
from tablebase.http.app import create_app
from tablebase.http.limits import MAX_BATCH, MAX_BODY

pytestmark = pytest.mark.slow  # builds on the session's cluster

TAKE = Path(__file__).with_name("plugins") / "take.py"  # a game as a stranger writes it, in a file

HEADERS = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory, scheduler):
    """(root, table of a game file, table whose game file is gone): the game files beside the folder."""
    here = tmp_path_factory.mktemp("exposed")
    # In folders of their own: a game's digest covers its folder, which the other's going would change.
    kept, gone = here / "games" / "take.py", here / "gone-games" / "gone.py"
    kept.parent.mkdir()
    gone.parent.mkdir()
    kept.write_text(TAKE.read_text())
    gone.write_text(TAKE.read_text().replace('name = "take"', 'name = "gone"'))  # a game of its own name
    specs = [spec_for(f"{kept}:Take", {"heap": 9}, "take_9"), spec_for(f"{gone}:Take", {"heap": 5}, "gone_5")]
    list(build_tables(specs, here / "db", scheduler=scheduler, quiet=True))
    gone.unlink()
    return here / "db", "take_9", "gone_5"


@pytest.fixture(scope="module")
def client(folder):
    kept = folder[0].parent / "games" / "take.py"  # the game of take_9, named as `serve --game` names it
    with TestClient(create_app(folder[0], games=[f"{kept}:Take"]), raise_server_exceptions=False) as c:
        yield c


def test_no_answer_names_a_path_of_the_machine(client, folder):
    root, take, gone = folder
    answers = {path: client.get(path, follow_redirects=False) for path in [
        "/", "/tables", "/openapi.json", "/nosuch", "/tables/nosuch", "/tables/nosuch/probe?position=1",
        f"/tables/{take}", f"/tables/{take}/position?position=4", f"/tables/{take}/position?position=99",
        f"/tables/{take}/probe?position=99", f"/tables/{gone}", f"/tables/{gone}/position?position=1",
        f"/tables/{gone}/probe?position=1", f"/tables/{gone}/lookup?position=1",
    ]}
    for spelling in {str(path) for folder in (root, root.parent) for path in (folder.absolute(), folder.resolve())}:
        for path, answer in answers.items():
            assert spelling not in answer.text, (path, spelling, answer.text[:500])
    statuses = {path: answer.status_code for path, answer in answers.items()}
    assert statuses["/"] == statuses[f"/tables/{take}"] == statuses[f"/tables/{take}/position?position=4"] == 200
    assert statuses["/tables/nosuch"] == statuses["/tables/nosuch/probe?position=1"] == 404
    assert statuses[f"/tables/{gone}"] == statuses[f"/tables/{gone}/probe?position=1"] == 503
    assert "gone.py" in answers[f"/tables/{gone}/probe?position=1"].json()["detail"]  # the file, by its name
    assert "take.py" in {t["table"]: t["origin"] for t in answers["/tables"].json()}[take]
    assert "<code>db</code>" in answers["/"].text  # the folder, by its name


def test_the_interactive_docs_are_off_and_nothing_comes_from_another_host(client, folder):
    _, take, _ = folder
    for path in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        assert client.get(path).status_code == 404, path
    assert client.get("/openapi.json").json()["paths"]  # programs still read the description
    pages = [client.get(path).text for path in ("/", f"/tables/{take}", f"/tables/{take}/position?position=4",
                                                f"/tables/{take}/board.svg?position=4", "/tables/nosuch")]
    for text in pages:
        # No script, style, image or link from anywhere but this server (SVG's xmlns names a namespace).
        assert not re.search(r"""(?:src|href|action)\s*=\s*["']?(?:[a-z]+:)?//""", text, re.IGNORECASE)
        assert "<script" not in text and "cdn" not in text.lower()


def test_a_422_names_the_field_and_the_reason_without_echoing_the_input(client, folder):
    _, take, _ = folder
    marker = "echoed-back-if-the-input-were-shown"
    answer = client.post(f"/tables/{take}/lookup-many", json={"positions": [marker] * (MAX_BATCH + 1)})
    assert answer.status_code == 422 and marker not in answer.text and len(answer.content) < 1000
    [said] = answer.json()["detail"]
    assert said["loc"] == ["body", "positions"] and f"{MAX_BATCH}" in said["msg"].replace(",", "")
    assert "input" not in said and said["type"] == "too_long"

    answer = client.post(f"/tables/{take}/lookup-many", json={"positions": [4, marker, 5]})
    assert answer.status_code == 422 and marker not in answer.text
    assert [(d["loc"], d["type"]) for d in answer.json()["detail"]] == [
        (["body", "positions", 0], "string_type"), (["body", "positions", 2], "string_type")]
    assert all("input" not in d and "string" in d["msg"] for d in answer.json()["detail"])

    answer = client.get(f"/tables/{take}/probe", params={"position": marker * 100})  # over MAX_POSITION
    assert answer.status_code == 422 and marker not in answer.text


def test_every_answer_carries_the_security_headers(client, folder):
    _, take, _ = folder
    answers = [
        client.get("/"), client.get(f"/tables/{take}"), client.get(f"/tables/{take}/position?position=4"),
        client.get(f"/tables/{take}/board.svg?position=4"),  # pages
        client.get("/tables"), client.get(f"/tables/{take}/probe?position=4"), client.get("/health"),
        client.get("/openapi.json"),  # the API
        client.get("/tables/nosuch"), client.get("/tables/nosuch/probe?position=1"), client.get("/nosuch"),
        client.get(f"/tables/{take}/probe"), client.delete("/tables"),  # errors: 404s, 422, 405
        client.post(f"/tables/{take}/lookup-many", content=b"x" * (MAX_BODY + 1)),  # 413, before the app
        client.get(f"/table/{take}", follow_redirects=False),  # a redirect
    ]
    assert [a.status_code for a in answers] == [200] * 8 + [404, 404, 404, 422, 405, 413, 308]
    for answer in answers:
        for name, value in HEADERS.items():
            assert answer.headers.get(name) == value, (answer.request.url, name)
        policy = dict(part.strip().split(" ", 1) for part in answer.headers["content-security-policy"].split(";"))
        assert policy["default-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
        assert "script-src" not in policy  # no script runs, from anywhere
