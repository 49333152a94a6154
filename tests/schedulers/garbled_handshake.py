"""A preload for ``dask scheduler --preload``: the scheduler answers a client's first handshakes wrongly.

Its first reply to a client that registers holds two messages where Dask's client takes exactly one
(``stream-start``), as a busy scheduler's batched stream can send; the client's start then fails inside
Dask. ``GARBLED_HANDSHAKES`` says how many clients are answered so (every one if unset).
"""

from __future__ import annotations

import os
from typing import Any


def dask_setup(scheduler: Any) -> None:
    register = scheduler.handlers["register-client"]
    garbled = {"left": int(os.environ.get("GARBLED_HANDSHAKES", "-1"))}

    async def add_client(comm: Any, client: str, versions: dict) -> None:
        if garbled["left"] == 0:
            return await register(comm=comm, client=client, versions=versions)
        garbled["left"] -= 1
        await comm.write([{"op": "stream-start"}, {"op": "stream-start"}])
        comm.abort()

    scheduler.handlers["register-client"] = add_client
