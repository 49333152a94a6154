"""The read-only JSON API over a tablebase folder, for programs that look positions up over HTTP.

The routes are ``api_routes``'s. Integers beyond 2^53 - 1 (a Domineering key
or value id) are sent as strings of digits, which a JavaScript reader keeps
exact, and smaller ones as numbers (``WIDE``). Lookups read each table's probe
index in place, or load a table built before indexes on first use; nothing
here can change the files, and a request's sizes are bounded in ``limits``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, StringConstraints

from tablebase.errors import DamagedTable, GameUnavailable, OverLimit, StoreError, TablebaseError
from tablebase.http.folder import ServedFolder
from tablebase.http.limits import (
    ERRORS,
    MAX_BATCH,
    MAX_POSITION,
    MAX_TABLE_NAME,
    TABLE_NAME,
)
from tablebase.spelling import as_text

Position = Annotated[str, StringConstraints(max_length=MAX_POSITION)]
Table = Annotated[str, PathParam(description="a table's name", pattern=TABLE_NAME, max_length=MAX_TABLE_NAME)]
Text = Annotated[str, Query(description="a position in the table's notation", max_length=MAX_POSITION)]
Side = Annotated[str | None, Query(description="partizan tables: the side to move first, Left or Right", max_length=8)]


class Batch(BaseModel):
    positions: list[Position] = Field(..., description="positions in the table's notation", max_length=MAX_BATCH)


#: How the API sends integers, in its description (``/openapi.json``) and in every answer.
WIDE = ("Integers beyond 2^53 - 1 (9,007,199,254,740,991) are sent as JSON strings of digits, smaller ones as "
        "numbers: a Domineering table's `key` and `value_id` are 64-bit numbers, which a JavaScript reader "
        "(whose numbers are doubles) would round. Read a `key` or `value_id` as a string or a number alike, "
        "e.g. BigInt(row.key) in JavaScript. Exact fractions (a partizan position's mean, temperature and stops) "
        "are strings too: \"3/4\".")


def status_of(error: TablebaseError) -> int:
    """Whose fault an error is: 503 the server's (its installation lacks the table's game, the table's files
    are damaged, or the answer would pass the server's bounds), 404 nothing is there by that name, 400 the
    request's (a position that does not parse or lies outside the table)."""
    if isinstance(error, (GameUnavailable, DamagedTable, OverLimit)):
        return 503
    return 404 if isinstance(error, StoreError) else 400


def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
    """A 422 naming each field that does not fit and why; not the input, which may be a whole batch."""
    said = [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]} for e in error.errors()]
    return JSONResponse({"detail": said}, status_code=422)


def api_routes(folder: ServedFolder) -> APIRouter:
    """The API's routes over one open folder, which the pages share:

        GET  /tables                                   the tables, with game, parameters, rows
        GET  /tables/{table}/lookup?position=5 5 2     a row and every move with its figures
        GET  /tables/{table}/probe?position=5 5 2      a row only (the fast path)
        GET  /tables/{table}/line?position=5 5 2       best play to the end (partizan: &first=Left or Right)
        POST /tables/{table}/lookup-many               {"positions": [...]} -> {"rows": [...]}
        GET  /health                                   whether the server answers
        GET  /openapi.json                             the API's description (FastAPI's own)

    An error says what was wrong without a path of the machine (``folder``), and a request that does not
    fit the description (422) is told which field and why, without its input echoed back (``invalid``).
    """
    router = APIRouter()
    db = folder.db

    def answer(call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)``, its errors as HTTP ones: each says whose fault it is, so none is a 500."""
        try:
            return as_text(call(*args), wide_ints=True)  # fractions and wide integers as text: see WIDE
        except TablebaseError as e:
            raise HTTPException(status_of(e), folder.public(str(e))) from None

    def table_or_404(table: str) -> None:
        if table not in db._every_manifest:
            raise HTTPException(404, f"no table {table!r}; tables: {', '.join(db._every_manifest) or 'none'}")
        answer(folder.loaded, table)

    @router.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @router.get("/tables")
    def tables() -> list[dict[str, Any]]:
        """Every table with its game, parameters, levels and row count."""
        return as_text([{**row, "origin": folder.public(row["origin"])} for row in db.tables()], wide_ints=True)

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

    @router.get("/tables/{table}/line", responses=ERRORS)
    def line(table: Table, position: Text, first: Side = None) -> dict[str, Any]:
        """Best play from a position to the end, each position with its figures and the move played from it;
        a partizan table's line starts with the side ``first`` to move (Left or Right)."""
        table_or_404(table)
        return answer(db.line, table, position, first)

    @router.post("/tables/{table}/lookup-many", responses=ERRORS)
    def lookup_many(table: Table, batch: Batch) -> JSONResponse:
        """Stored rows of many positions, in the order given."""
        table_or_404(table)
        rows = answer(db.lookup_many, table, batch.positions)
        return JSONResponse({"rows": as_text(rows.to_pylist(), wide_ints=True)})

    return router
