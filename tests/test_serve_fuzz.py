"""The JSON API under requests nobody should send: a property-based fuzzer and hand-made hostile ones.

Schemathesis reads the API's own OpenAPI description and sends what it allows
and what it does not, to the real app (ASGI, in process). Every answer must be
one the description documents, and none a 500. Each generated request is also
sent to every real table, which the fuzzer's random names never hit.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance
from starlette.testclient import TestClient

from tablebase.http.app import create_app
from tablebase.http.limits import MAX_BATCH, MAX_BODY, MAX_POSITION

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py

EXAMPLES = int(os.environ.get("TABLEBASE_FUZZ_EXAMPLES", "40"))  # per operation; benchmarks/fuzz_serve.py runs more


@pytest.fixture(scope="module")
def root(built):
    root, _ = built("chomp", rows=4, cols=5)
    built("nim", heaps=3, max_heap=6, partition_rows=7)
    built("wythoff", max=30)
    return root


@pytest.fixture(scope="module")
def app(root):
    return create_app(root)


@pytest.fixture(scope="module")
def client(app):
    return TestClient(app, raise_server_exceptions=False)


TABLES = ["chomp_4x5", "nim_3x6", "wythoff_n30"]


def fuzz(app, examples: int, seed: int | None = 0, sent: dict[str, int] | None = None) -> dict[str, int]:
    """Run the fuzzer over every operation of the app's API; the number of requests sent, by operation."""
    sent = {} if sent is None else sent
    for found in schemathesis.openapi.from_asgi("/openapi.json", app).get_all_operations():
        operation = found.ok()
        sent[operation.label] = 0

        @given(case=operation.as_strategy())
        @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck),
                  derandomize=seed is not None, database=None)
        def check(case):
            for table in [None, *TABLES] if "table" in (case.path_parameters or {}) else [None]:
                if table is not None:
                    case.path_parameters["table"] = table
                # The description cannot say which text is a position of a game: a
                # well-formed string that is not one is rightly a 400.
                case.call_and_validate(excluded_checks=[positive_data_acceptance])
                sent[operation.label] += 1

        check()
    return sent


def test_the_fuzzer_finds_no_server_error_and_no_undocumented_answer(app):
    sent = fuzz(app, EXAMPLES)
    assert set(sent) >= {"GET /tables/{table}/probe", "POST /tables/{table}/lookup-many"}


def test_a_body_over_the_limit_is_refused_before_it_is_read(client):
    big = b'{"positions": ["' + b"1" * MAX_BODY + b'"]}'
    answer = client.post("/tables/chomp_4x5/lookup-many", content=big, headers={"content-type": "application/json"})
    assert answer.status_code == 413 and "at most" in answer.json()["detail"]

    def chunks():  # no Content-Length: counted as it comes
        for _ in range(MAX_BODY // 65536 + 2):
            yield b" " * 65536

    answer = client.post("/tables/chomp_4x5/lookup-many", content=chunks(),
                         headers={"content-type": "application/json"})
    assert answer.status_code == 413 and "over" in answer.json()["detail"]


def test_batches_and_positions_are_bounded(client):
    answer = client.post("/tables/chomp_4x5/lookup-many", json={"positions": ["1"] * (MAX_BATCH + 1)})
    assert answer.status_code == 422
    answer = client.get("/tables/chomp_4x5/probe", params={"position": "1" * (MAX_POSITION + 1)})
    assert answer.status_code == 422
    assert client.post("/tables/chomp_4x5/lookup-many", json={"positions": ["5 5 2"] * MAX_BATCH}).status_code == 200


@pytest.mark.parametrize("table", ["..", "../chomp_4x5", "%2e%2e", "..%2f..%2fetc", "chomp_4x5%00", "CHOMP_4X5",
                                   "_manifest.json", "chomp_4x5/..", "%2fetc%2fpasswd", "a" * 5000])
def test_no_table_name_reaches_outside_the_folder(client, table):
    """Neither the API nor the pages beside it under /tables/ read a table by such a name: each is a 4xx with a
    reason, JSON from the API, a page from the pages."""
    answer = client.get(f"/tables/{table}/probe", params={"position": "1"})
    assert 400 <= answer.status_code < 500, answer.text
    if answer.url.path == "/tables/probe":  # the client took "chomp_4x5/.." away: the page of a table named probe
        assert "no table &#39;probe&#39;" in answer.text
    else:
        assert "detail" in answer.json()
    for page in (f"/tables/{table}", f"/tables/{table}/position?position=1", f"/tables/{table}/board.svg"):
        answer = client.get(page, follow_redirects=False)
        if answer.request.url.raw_path.decode() != page:  # the client resolved "..": it asked for / or /tables
            continue
        assert 400 <= answer.status_code < 500, (page, answer.status_code)


@pytest.mark.parametrize("body", [b"", b"{", b"[]", b'{"positions": "5 5 2"}', b'{"positions": [1, 2]}',
                                  b'{"positions": [null]}', b"\xff\xfe", b'{"positions": ["\\u0000"]}',
                                  b'{"positions": ["' + "é".encode() * 100 + b'"]}', b"[" * 100_000])
def test_malformed_bodies_get_a_4xx_with_a_reason(client, body):
    answer = client.post("/tables/chomp_4x5/lookup-many", content=body, headers={"content-type": "application/json"})
    assert 400 <= answer.status_code < 500, answer.text
    assert answer.json()["detail"]
