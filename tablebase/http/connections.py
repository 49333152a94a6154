"""The server's socket and connections: the port bound before the server says it serves, and no connection
kept open by a client that sends nothing.

uvicorn closes a connection that stays idle after an answer, but waits for
ever for a request that does not come: enough sockets that send nothing would
hold every file descriptor. So a request, from its first byte (or the
connection's start) to its last, must arrive within ``REQUEST_TIMEOUT``
seconds (``RequestDeadline``); the time the app takes to answer is the
server's, and not counted.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from tablebase.errors import TablebaseError
from tablebase.http.limits import REQUEST_TIMEOUT

BACKLOG = 2048  # uvicorn's own
SHUTDOWN_GRACE = 15.0  # seconds a stopping server waits for the answers under way (a search's are bounded)

#: what uvicorn's worker processes import as their protocol (they are given names, not objects)
PROTOCOL = "tablebase.http.connections:RequestDeadline"


class RequestDeadline(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request does not arrive within
    ``request_timeout`` seconds (from the connection's start, or from the first byte after an answer)."""

    request_timeout: float = REQUEST_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):  # the request line, headers or body still to come
            self._arm()
        else:  # the request is whole (or the connection is done): the rest is the app's time
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._deadline is None and not self.transport.is_closing():
            self._deadline = self.loop.call_later(self.request_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` and listening; a TablebaseError saying why not in one line."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as e:
        raise TablebaseError(f"--host {host!r} is no address of this machine ({getattr(e, 'strerror', e)})") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # not a port in use: one just closed
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError as e:
        sock.close()
        busy = " (is another server there?)" if e.errno == errno.EADDRINUSE else ""
        raise TablebaseError(f"cannot listen on {host} port {port}: {e.strerror}{busy}") from None
    sock.set_inheritable(True)  # worker processes serve it too
    return sock


def url_of(sock: socket.socket) -> str:
    """The URL a listening socket answers at."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if sock.family == socket.AF_INET6 else f"http://{host}:{port}"


def server_options(keep_alive: float, protocol: Any = RequestDeadline) -> dict[str, Any]:
    """uvicorn's options for the server: its connections' limits, and no more said of it than needed."""
    return {"http": protocol, "ws": "none", "timeout_keep_alive": keep_alive, "server_header": False,
            "log_level": "warning", "timeout_graceful_shutdown": SHUTDOWN_GRACE}
