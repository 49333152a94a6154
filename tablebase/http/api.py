"""A read-only JSON API over a tablebase folder, for programs that look positions up over HTTP.

    tablebase serve --db tb --port 8000
    GET  /tables                                   the tables, with game, parameters, rows
    GET  /tables/{table}/lookup?position=5 5 2     a row and every move with its figures
    GET  /tables/{table}/probe?position=5 5 2      a row only (the fast path)
    POST /tables/{table}/lookup-many               {"positions": [...]} -> {"rows": [...]}
    GET  /openapi.json, /docs                      the API's description

Served by uvicorn. Lookups use the in-memory index of each table (loaded on
first use); nothing here can change the files.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Query
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, StringConstraints

import tablebase
from tablebase.errors import GameUnavailable, PositionError, StoreError, TablebaseError
from tablebase.http.limits import ERRORS, MAX_BATCH, MAX_POSITION, MAX_TABLE_NAME, TABLE_NAME, BoundedBodies
from tablebase.http.pages import explorer_routes

Position = Annotated[str, StringConstraints(max_length=MAX_POSITION)]
Table = Annotated[str, PathParam(description="a table's name", pattern=TABLE_NAME, max_length=MAX_TABLE_NAME)]
Text = Annotated[str, Query(description="a position in the table's notation", max_length=MAX_POSITION)]


class Batch(BaseModel):
    positions: list[Position] = Field(..., description="positions in the table's notation", max_length=MAX_BATCH)


def create_app(root: str | os.PathLike) -> FastAPI:
    """The API over the tables under ``root``."""
    db = tablebase.open(Path(root))
    loading = threading.Lock()
    app = FastAPI(
        title="tablebase",
        version=tablebase.__version__,
        description="Solved positions of combinatorial games, read-only.",
    )
    app.add_middleware(BoundedBodies)

    def table_or_404(table: str) -> None:
        if table not in db.manifests:
            raise HTTPException(404, f"no table {table!r}; tables: {', '.join(db.manifests) or 'none'}")
        with loading:  # one thread loads a table's index; the others wait for it
            answer(db.index, table)

    def answer(call, *args) -> Any:
        try:
            return call(*args)
        except GameUnavailable as e:  # the server's installation lacks the game: not the request's fault
            raise HTTPException(503, str(e)) from None
        except PositionError as e:
            raise HTTPException(400, str(e)) from None
        except StoreError as e:
            raise HTTPException(404, str(e)) from None
        except TablebaseError as e:
            raise HTTPException(400, str(e)) from None

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/tables")
    def tables() -> list[dict[str, Any]]:
        """Every table with its game, parameters, levels and row count."""
        return db.tables()

    @app.get("/tables/{table}/lookup", responses=ERRORS)
    def lookup(table: Table, position: Text) -> dict[str, Any]:
        """The stored row of a position and every legal move with its child's figures."""
        table_or_404(table)
        return answer(db.lookup, table, position)

    @app.get("/tables/{table}/probe", responses=ERRORS)
    def probe(table: Table, position: Text) -> dict[str, Any]:
        """The stored figures of one position, without its moves."""
        table_or_404(table)
        return answer(db.probe, table, position)

    @app.post("/tables/{table}/lookup-many", responses=ERRORS)
    def lookup_many(table: Table, batch: Batch) -> JSONResponse:
        """Stored rows of many positions, in the order given."""
        table_or_404(table)
        rows = answer(db.lookup_many, table, batch.positions)
        return JSONResponse({"rows": rows.to_pylist()})

    app.include_router(explorer_routes(db, loading))  # the HTML pages, at /
    return app


def app_from_environment() -> FastAPI:
    """For uvicorn's worker processes: the folder comes from TABLEBASE_DB."""
    return create_app(os.environ["TABLEBASE_DB"])


def serve(root: str | os.PathLike, host: str = "127.0.0.1", port: int = 8000, workers: int = 1) -> None:
    import uvicorn

    tablebase.open(root)  # fail now, with a clean error, if the folder is not a tablebase
    if workers > 1:
        os.environ["TABLEBASE_DB"] = str(Path(root).resolve())
        uvicorn.run("tablebase.http.api:app_from_environment", factory=True, host=host, port=port,
                    workers=workers, log_level="warning")
    else:
        uvicorn.run(create_app(root), host=host, port=port, log_level="warning")
