"""A client cannot hold a connection open by sending nothing: the server closes a connection whose request does not
arrive whole within its limit, and one left idle after an answer; the time the app takes is not the client's.

A real server over TCP, with limits of one second for the test. Each
assertion is on what happened to the socket (closed by the server, or
answered), with a generous wait for it, never on how long it took.
"""

from __future__ import annotations

import socket
import threading

import pytest
from served import get, running

from tablebase.http.app import create_app
from tablebase.http.connections import PROTOCOL, RequestDeadline
from tablebase.query.database import Tablebase

LIMIT = 1.0  # seconds, for the test
WAIT = 60.0  # seconds a socket waits for the server to do something: far beyond LIMIT


class Short(RequestDeadline):
    request_timeout = LIMIT


@pytest.fixture(scope="module")
def root(built):
    return built("nim", heaps=3, max_heap=6, partition_rows=7)[0]


@pytest.fixture(scope="module")
def base(root):
    with running(create_app(root), protocol=Short, keep_alive=LIMIT) as url:
        yield url


def connect(base: str) -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=WAIT)


def closed_by_server(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a timeout here means it never did)."""
    received = b""
    with sock:
        while chunk := sock.recv(65536):
            received += chunk
    return received


HALF_A_BODY = b"POST /tables/nim_3x6/lookup-many HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"


@pytest.mark.parametrize("sent", [b"", b"GET /hea", b"GET /health HTTP/1.1\r\nHost: x\r\n", HALF_A_BODY],
                         ids=["nothing", "half a request line", "headers without their end", "half a body"])
def test_a_request_that_does_not_arrive_is_cut_off(base, sent):
    sock = connect(base)
    sock.sendall(sent)
    assert closed_by_server(sock) == b""  # closed, and nothing answered to half a request


def test_a_connection_idle_after_an_answer_is_closed(base):
    sock = connect(base)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = closed_by_server(sock)  # the answer, and then (keep-alive over) the end of the connection
    assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b'{"status":"ok"}')


def test_the_apps_own_time_is_not_the_clients(root, monkeypatch):
    """A table whose loading takes several times the limit is still answered: the deadline is the request's."""
    index = Tablebase._rows

    def slow_index(self, table):
        threading.Event().wait(3 * LIMIT)  # the app's work, three times the client's limit
        return index(self, table)

    monkeypatch.setattr(Tablebase, "_rows", slow_index)
    with running(create_app(root), protocol=Short, keep_alive=LIMIT) as url:
        status, body = get(f"{url}/tables/nim_3x6/probe?position=1%202%203")
    assert status == 200 and b'"grundy":0' in body


def test_the_protocol_uvicorns_worker_processes_import_is_this_one():
    from uvicorn.importer import import_from_string

    assert import_from_string(PROTOCOL) is RequestDeadline
