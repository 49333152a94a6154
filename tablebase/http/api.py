"""The read-only JSON API over a tablebase folder, for programs that look positions up over HTTP.

    GET  /tables                                   the tables, with game, parameters, rows
    GET  /tables/{table}/lookup?position=5 5 2     a row and every move with its figures
    GET  /tables/{table}/probe?position=5 5 2      a row only (the fast path)
    POST /tables/{table}/lookup-many               {"positions": [...]} -> {"rows": [...]}
    GET  /health                                   whether the server answers
    GET  /openapi.json, /docs                      the API's description (FastAPI's own)

Lookups use the in-memory index of each table (loaded on first use); nothing
here can change the files. A request's sizes are bounded in ``limits``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, StringConstraints

from tablebase.errors import GameUnavailable, PositionError, StoreError, TablebaseError
from tablebase.http.limits import ERRORS, MAX_BATCH, MAX_POSITION, MAX_TABLE_NAME, TABLE_NAME
from tablebase.query.database import Tablebase
from tablebase.words import as_text

Position = Annotated[str, StringConstraints(max_length=MAX_POSITION)]
Table = Annotated[str, PathParam(description="a table's name", pattern=TABLE_NAME, max_length=MAX_TABLE_NAME)]
Text = Annotated[str, Query(description="a position in the table's notation", max_length=MAX_POSITION)]


class Batch(BaseModel):
    positions: list[Position] = Field(..., description="positions in the table's notation", max_length=MAX_BATCH)


def answer(call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)``, its errors as HTTP ones: each says whose fault it is, so none is a 500."""
    try:
        return as_text(call(*args))  # exact fractions as text: JSON has no exact numbers
    except GameUnavailable as e:  # the server's installation lacks the game: not the request's fault
        raise HTTPException(503, str(e)) from None
    except PositionError as e:
        raise HTTPException(400, str(e)) from None
    except StoreError as e:
        raise HTTPException(404, str(e)) from None
    except TablebaseError as e:
        raise HTTPException(400, str(e)) from None


def api_routes(db: Tablebase, loading: threading.Lock) -> APIRouter:
    """The API's routes over one open folder; ``loading`` is the server's, so a table's index is loaded once."""
    router = APIRouter()

    def table_or_404(table: str) -> None:
        if table not in db.manifests:
            raise HTTPException(404, f"no table {table!r}; tables: {', '.join(db.manifests) or 'none'}")
        with loading:  # one thread loads a table's index; the others wait for it
            answer(db.index, table)

    @router.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @router.get("/tables")
    def tables() -> list[dict[str, Any]]:
        """Every table with its game, parameters, levels and row count."""
        return db.tables()

    @router.get("/tables/{table}/lookup", responses=ERRORS)
    def lookup(table: Table, position: Text) -> dict[str, Any]:
        """The stored row of a position and every legal move with its child's figures."""
        table_or_404(table)
        return answer(db.lookup, table, position)

    @router.get("/tables/{table}/probe", responses=ERRORS)
    def probe(table: Table, position: Text) -> dict[str, Any]:
        """The stored figures of one position, without its moves."""
        table_or_404(table)
        return answer(db.probe, table, position)

    @router.post("/tables/{table}/lookup-many", responses=ERRORS)
    def lookup_many(table: Table, batch: Batch) -> JSONResponse:
        """Stored rows of many positions, in the order given."""
        table_or_404(table)
        rows = answer(db.lookup_many, table, batch.positions)
        return JSONResponse({"rows": rows.to_pylist()})

    return router
