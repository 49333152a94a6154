"""The server of ``tablebase serve``: one app with the JSON API and the explorer's pages over one folder.

    tablebase serve --db tb --port 8000

Served by uvicorn. The API (``api``) and the pages (``pages``) read the folder
through one ``ServedFolder``; every request passes the body bound of
``limits``, and every answer carries the headers of ``headers``. The interactive
docs FastAPI would serve at /docs load their scripts from a CDN, and are left
out; the API's description is at /openapi.json.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError

from tablebase.errors import TablebaseError
from tablebase.http.api import WIDE, api_routes, invalid
from tablebase.http.connections import PROTOCOL, listen, server_options, url_of
from tablebase.http.folder import ServedFolder
from tablebase.http.headers import with_headers
from tablebase.http.limits import KEEP_ALIVE, SEARCH, BoundedBodies, SearchBudgets
from tablebase.http.pages import explorer_routes
from tablebase.kinds import Bounds
from tablebase.store.location import Folder, Location
from tablebase.version import VERSION

#: what uvicorn's worker processes import to build their own app (it takes a name, not an app, to start them)
FACTORY = "tablebase.http.app:app_from_environment"
STORAGE_VARIABLE = "TABLEBASE_STORAGE_OPTIONS"


class Served(FastAPI):
    """The app, adding the headers of ``headers`` to every answer, its errors and 500s included (they are
    made outside any middleware)."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        await super().__call__(scope, receive, with_headers(send) if scope["type"] == "http" else send)


def create_app(root: str | os.PathLike | ServedFolder, games: list[str] | tuple[str, ...] = (),
               search: Bounds = SEARCH) -> FastAPI:
    """The API and the pages over the tables under ``root``, trusting the ``games`` named (``serve --game``);
    each request may search ``search`` beyond a table. When the server stops, searches still running stop,
    and the folder is closed (its SQL's private folder removed)."""
    folder = root if isinstance(root, ServedFolder) else ServedFolder(root, games)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        folder.stopping.set()
        folder.db.close()

    app = Served(
        title="tablebase",
        version=VERSION,
        description=f"Solved positions of combinatorial games, read-only. {WIDE}",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.add_middleware(SearchBudgets, bounds=search, stopping=folder.stopping)  # inside the next: added first
    app.add_middleware(BoundedBodies)
    app.add_exception_handler(RequestValidationError, invalid)
    app.include_router(api_routes(folder))
    app.include_router(explorer_routes(folder))  # the HTML pages, left out of the API's description
    return app


def app_from_environment() -> FastAPI:
    """For uvicorn's worker processes: the folder comes from TABLEBASE_DB (an object store's options from
    TABLEBASE_STORAGE_OPTIONS, JSON), the games named from TABLEBASE_GAMES (one a line)."""
    where: Any = os.environ["TABLEBASE_DB"]
    options = json.loads(os.environ.get(STORAGE_VARIABLE) or "{}")
    if options:
        from tablebase.store.places import location_of

        where = location_of(where, options)
    return create_app(where, os.environ.get("TABLEBASE_GAMES", "").splitlines())


def serving(root: str | os.PathLike | Location, games: list[str] | tuple[str, ...] = ()) -> ServedFolder:
    """The folder opened for serving; a TablebaseError if it is no tablebase, or holds no table, or a game
    named is bad."""
    folder = ServedFolder(root, games)
    if not folder.db._every_manifest:
        where = folder.db.root
        raise TablebaseError(f"no tables in {where}: nothing to serve (tablebase build GAME ... --out {where} makes "
                             "one)")
    return folder


def serve(root: str | os.PathLike | Location, host: str = "127.0.0.1", port: int = 8000, workers: int = 1,
          ready: Callable[[str], None] = lambda url: None, games: list[str] | tuple[str, ...] = ()) -> None:
    """Serve ``root`` until stopped; with ``workers`` > 1, as that many processes sharing the port.

    The folder is opened and the port bound first, so that a folder that is
    no tablebase and a port in use are a TablebaseError; ``ready`` is then
    told the URL, before the first request is answered. Told to stop (SIGTERM,
    Ctrl-C), the server stops its searches at once, gives the answers under
    way ``SHUTDOWN_GRACE`` seconds, and closes the folder (``create_app``).
    """
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    folder = serving(root, games)
    sock = listen(host, port)
    ready(url_of(sock))
    if workers > 1:
        location = folder.db._location
        os.environ["TABLEBASE_DB"] = str(Path(location.root).resolve()) if isinstance(location, Folder) else \
            location.url
        os.environ[STORAGE_VARIABLE] = json.dumps(getattr(location, "options", {}))
        os.environ["TABLEBASE_GAMES"] = "\n".join(games)  # the workers start in this working folder
        config = uvicorn.Config(FACTORY, factory=True, workers=workers, **server_options(KEEP_ALIVE, PROTOCOL))
        Multiprocess(config, sockets=[sock]).run()
    else:
        server = uvicorn.Server(uvicorn.Config(create_app(folder), **server_options(KEEP_ALIVE)))
        told = server.handle_exit

        def handle_exit(sig: int, frame: Any) -> None:  # searches under way stop now, not after the grace
            folder.stopping.set()
            told(sig, frame)

        server.handle_exit = handle_exit  # type: ignore[method-assign]
        server.run(sockets=[sock])

