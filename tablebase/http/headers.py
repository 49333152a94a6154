"""The headers every answer of the server carries, whatever made it: a page, the API, an error or a redirect.

The pages are rendered on the server with their style inline and their
pictures inline SVG, and run no script: the policy allows inline style and
nothing else (no script, no frame, no other site), so that text a game or a
table puts on a page cannot run or load anything even if it slipped past
the templates' escaping.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

CONTENT_SECURITY_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; "
                           "base-uri 'none'; frame-ancestors 'none'")

HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),  # a body is what its content type says, never sniffed
    (b"x-frame-options", b"DENY"),  # frame-ancestors, for browsers that do not read the policy
    (b"referrer-policy", b"no-referrer"),  # a position's URL is not passed on to the sites it links to
]

Send = Callable[[dict[str, Any]], Awaitable[None]]


def with_headers(send: Send) -> Send:
    """``send``, with ``HEADERS`` added to the start of each response."""

    async def sending(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *HEADERS]}
        await send(message)

    return sending
