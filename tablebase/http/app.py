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


def create_app(root: str | os.PathLike) -> FastAPI:
    """The API and the pages over the tables under ``root``."""
    db = Tablebase(Path(root))
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
    """For uvicorn's worker processes: the folder comes from TABLEBASE_DB."""
    return create_app(os.environ["TABLEBASE_DB"])


def serve(root: str | os.PathLike, host: str = "127.0.0.1", port: int = 8000, workers: int = 1) -> None:
    """Serve ``root`` until stopped; with ``workers`` > 1, as that many processes sharing the port."""
    import uvicorn

    Tablebase(root)  # fail now, with a clean error, if the folder is not a tablebase
    if workers > 1:
        os.environ["TABLEBASE_DB"] = str(Path(root).resolve())
        uvicorn.run(FACTORY, factory=True, host=host, port=port, workers=workers, log_level="warning")
    else:
        uvicorn.run(create_app(root), host=host, port=port, log_level="warning")
