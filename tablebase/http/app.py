"""The server of ``tablebase serve``: one app with the JSON API and the explorer's pages over one folder.

    tablebase serve --db tb --port 8000

Served by uvicorn. The API (``api``) and the pages (``pages``) read the
folder through one ``Tablebase`` and one lock, so a table's index is loaded
once whichever asks first; every request passes the body bound of ``limits``.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from fastapi import FastAPI

from tablebase.http.api import api_routes
from tablebase.http.limits import BoundedBodies
from tablebase.http.pages import explorer_routes
from tablebase.query import Tablebase
from tablebase.version import VERSION

#: what uvicorn's worker processes import to build their own app (it takes a name, not an app, to start them)
FACTORY = "tablebase.http.app:app_from_environment"


def create_app(root: str | os.PathLike, games: list[str] | tuple[str, ...] = ()) -> FastAPI:
    """The API and the pages over the tables under ``root``, trusting the ``games`` named (``serve --game``)."""
    db = Tablebase(Path(root), games)
    loading = threading.Lock()
    app = FastAPI(
        title="tablebase",
        version=VERSION,
        description="Solved positions of combinatorial games, read-only.",
    )
    app.add_middleware(BoundedBodies)
    app.include_router(api_routes(db, loading))
    app.include_router(explorer_routes(db, loading))  # the HTML pages, left out of the API's description
    return app


def app_from_environment() -> FastAPI:
    """For uvicorn's worker processes: the folder comes from TABLEBASE_DB, the games named from TABLEBASE_GAMES
    (one a line)."""
    return create_app(os.environ["TABLEBASE_DB"], os.environ.get("TABLEBASE_GAMES", "").splitlines())


def serve(root: str | os.PathLike, host: str = "127.0.0.1", port: int = 8000, workers: int = 1,
          games: list[str] | tuple[str, ...] = ()) -> None:
    """Serve ``root`` until stopped; with ``workers`` > 1, as that many processes sharing the port."""
    import uvicorn

    Tablebase(root, games)  # fail now, with a clean error, if the folder is not a tablebase or a game is bad
    if workers > 1:
        os.environ["TABLEBASE_DB"] = str(Path(root).resolve())
        os.environ["TABLEBASE_GAMES"] = "\n".join(games)  # the workers start in this working folder
        uvicorn.run(FACTORY, factory=True, host=host, port=port, workers=workers, log_level="warning")
    else:
        uvicorn.run(create_app(root, games), host=host, port=port, log_level="warning")
