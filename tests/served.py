"""A real server in a thread of the test process: uvicorn over TCP on loopback, configured as ``serve`` does it.

In process, so that a test can hold a table's loading with an event; over a
real socket, so that what is tested is what a client sees.
"""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from tablebase.http.connections import RequestDeadline, listen, server_options, url_of
from tablebase.http.limits import KEEP_ALIVE


@contextmanager
def running(app: Any, protocol: type = RequestDeadline, keep_alive: float = KEEP_ALIVE) -> Iterator[str]:
    """The base URL of ``app`` served on a free port of 127.0.0.1 until the block ends."""
    sock = listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, **server_options(keep_alive, protocol)))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield url_of(sock)
    finally:
        server.should_exit = True
        thread.join(timeout=60)
        sock.close()


def get(url: str, timeout: float = 120) -> tuple[int, bytes]:
    """(status, body) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
