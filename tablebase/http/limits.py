"""What the server accepts from a request: sizes and times it bounds, so that no caller can make it hold much.

A request body is refused (413) past ``MAX_BODY`` before the app sees it
(``BoundedBodies``); a batch, a position and a table's name have their
bounds; a request must arrive whole within ``REQUEST_TIMEOUT`` seconds
(``connections.py``); and what a request may make the server search beyond a
table is ``SEARCH``, stopped once its client has gone or the server stops
(``SearchBudgets``). Every refusal is a 4xx or a 503 with its reason in
``detail``, as FastAPI's own are.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Awaitable, Callable

from tablebase.kinds.budget import Bounds, searching
from tablebase.store.files import TABLE_NAME  # noqa: F401 (one rule for table names, here and in the store)

MAX_BODY = 1 << 20  # bytes of a request body
MAX_BATCH = 10_000  # positions in one lookup-many
MAX_POSITION = 1_000  # characters of one position's text
MAX_TABLE_NAME = 200
REQUEST_TIMEOUT = 20.0  # seconds from a request's first byte to its last: a body of MAX_BODY at 50 kB/s
KEEP_ALIVE = 5.0  # seconds a connection may stay idle after an answer (uvicorn's own default)
SEARCH = Bounds(seconds=10.0, memory=256 * 2**20)  # what one request may search beyond a table

#: what the routes may answer besides 200 and 422, for the API's description
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "a position that does not parse or lies outside the table"},
    404: {"description": "no such table"},
    413: {"description": f"a request body over {MAX_BODY:,} bytes"},
    503: {"description": "the table's game is not installed on this server, or its files are damaged"},
}

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


async def _refuse(send: Send, status: int, reason: str) -> None:
    body = json.dumps({"detail": reason}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BoundedBodies:
    """ASGI middleware: a body longer than ``limit`` bytes is refused before any of it is kept past the limit."""

    def __init__(self, app: Any, limit: int = MAX_BODY) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            if not declared.isdigit():
                await _refuse(send, 400, "Content-Length is not a number")
                return
            if int(declared) > self.limit:
                await _refuse(send, 413, f"request body of {int(declared):,} bytes; at most {self.limit:,}")
                return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            if len(body) > self.limit:
                await _refuse(send, 413, f"request body over {self.limit:,} bytes")
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if replayed:
                return await receive()  # after the body: waits for the client to go away
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)


class SearchBudgets:
    """ASGI middleware, inside ``BoundedBodies``: each request runs on a search budget of ``bounds``, which stops
    once its client has gone (the connection closed before the answer) or ``stopping`` is set (the server
    stops). The client's going is watched after its body is read, which ``BoundedBodies`` has done whole."""

    def __init__(self, app: Any, bounds: Bounds, stopping: threading.Event) -> None:
        self.app, self.bounds, self.stopping = app, bounds, stopping

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = await receive()
        left, gone = threading.Event(), asyncio.Event()

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            left.set()  # also once the answer is sent, when nothing is left to stop
            gone.set()

        async def replay() -> dict[str, Any]:
            nonlocal body
            if body is not None:
                given, body = body, None
                return given
            await gone.wait()
            return {"type": "http.disconnect"}

        watcher = asyncio.create_task(watch())
        try:
            with searching(self.bounds.budget(lambda: left.is_set() or self.stopping.is_set())):
                await self.app(scope, replay, send)
        finally:
            watcher.cancel()
