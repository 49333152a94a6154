"""The explorer's HTML pages: the tables, a table's statistics and charts, a position with its board and moves.

Pages are rendered on the server from Jinja templates (autoescaped) and need
no JavaScript. They read the folder as the JSON API does, through the same
``ServedFolder``: lookups are its kind's, statistics are queries/*.sql, and
boards are drawn by the game's ``draw``. A table's statistics are read once,
under that table's lock only; a page names the folder and its tables by
their names, never by a path.

A table's pages live under the noun of its JSON API, ``/tables/{table}``:

    GET /                                          the tables
    GET /tables/{table}                            a table: statistics, charts, positions worth a look
    GET /tables/{table}/position?position=...      a position: board, figures, moves (&moves=all for all)
    GET /tables/{table}/board.svg?position=...     a position's picture alone

Each answered at ``/table/...`` too, where the pages were first, with a
permanent redirect (308) to the same URL under ``/tables/``, so that links
and bookmarks made then still lead to the page.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

import jinja2
from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from tablebase.errors import GameUnavailable, TablebaseError
from tablebase.games.drawing import OUTCOME_COLOURS
from tablebase.http.charts import cell, chart_of
from tablebase.http.folder import ServedFolder
from tablebase.http.interesting import applicable
from tablebase.query.database import Statistic, quote_name
from tablebase.store import table_dir

STAT_ROWS = 40  # rows of a statistic shown under its chart
MOVES_SHOWN = 200  # moves listed unless all are asked for: Wythoff 1024 has 1,300 from one position
HIDDEN = {"table", "position", "key", "moves", "warning", "note", "regions", "value_id"}
OLD, NEW = "/table/", "/tables/"  # where a table's pages were, and are


def templates() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("tablebase.http", "templates"),
                             autoescape=True)
    env.filters["cell"] = cell
    env.filters["q"] = lambda text: quote(str(text), safe="")
    env.globals["outcome_colours"] = OUTCOME_COLOURS
    return env


class Explorer:
    """The pages over one open folder, which the API shares."""

    def __init__(self, folder: ServedFolder) -> None:
        self.folder = folder
        self.db = folder.db
        self.env = templates()
        # Statistics and picks are read once per table: bounded by the tables of the folder.
        self.stats: dict[str, list[Statistic]] = {}
        self.picks: dict[str, list[tuple[str, str, Any]]] = {}

    def page(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        started = time.perf_counter()
        html = self.env.get_template(name).render(**context)
        response = HTMLResponse(html, status_code=status)
        response.headers["Server-Timing"] = f"render;dur={1000 * (time.perf_counter() - started):.1f}"
        return response

    def failure(self, error: Exception, table: str | None = None) -> HTMLResponse:
        """A page naming the problem: 503 if the server lacks the game, else 404 (nothing there by that name)."""
        status = 503 if isinstance(error, GameUnavailable) else 404
        return self.page("error.html", status, reason=self.folder.public(str(error)), table=table)

    def guarded(self, table: str, call: Callable[[], Any]) -> Any:
        """``call()`` under ``table``'s lock: what it loads of the table is loaded once."""
        with self.folder.loading(table):
            return call()

    # -- pages ---------------------------------------------------------------------
    def tables(self) -> HTMLResponse:
        listed = []
        for row in self.db.tables():
            manifest = table_dir(self.db.root, row["table"]) / "_manifest.json"
            built = datetime.fromtimestamp(manifest.stat().st_mtime, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            listed.append({**row, "built": built,
                           "params": ", ".join(f"{k.replace('_', '-')} {v}" for k, v in row["params"].items())})
        return self.page("tables.html", tables=listed, folder=self.folder.name)

    def table(self, table: str) -> HTMLResponse:
        try:
            manifest = self.db.manifest(table)
            game = self.guarded(table, lambda: self.db.game(table))
            stats = self.guarded(table, lambda: self._stats(table))
            picks = self.guarded(table, lambda: self._picks(table))
        except TablebaseError as e:
            return self.failure(e, table)
        shown = [{"title": title, "chart": chart_of(rows), "columns": rows.column_names,
                  "rows": rows.slice(0, STAT_ROWS).to_pylist(), "more": max(rows.num_rows - STAT_ROWS, 0)}
                 for _, title, rows in stats]
        return self.page("table.html", table=table, manifest=manifest, game=game, stats=shown, picks=picks)

    def position(self, table: str, position: str, all_moves: bool = False) -> HTMLResponse:
        started = time.perf_counter()
        try:
            self.folder.loaded(table)
            row = self.db.lookup(table, position)
            game = self.db.game(table)
            board = Markup(game.draw(row["position"]).svg())
            regions = [Markup(game.draw(r).svg(20)) for r in _regions(row)]
        except TablebaseError as e:
            return self.failure(e, table)
        figures = {k: v for k, v in row.items() if k not in HIDDEN}
        columns: list[str] = []
        for move in row["moves"]:
            columns += [c for c in move if c not in HIDDEN and c != "move" and c not in columns]
        looked_up = time.perf_counter() - started
        moves = row["moves"] if all_moves else row["moves"][:MOVES_SHOWN]
        response = self.page("position.html", table=table, row=row, figures=figures, board=board, regions=regions,
                             columns=columns, game=game, looked_up=looked_up, moves=moves,
                             hidden=len(row["moves"]) - len(moves))
        response.headers["Server-Timing"] += f", lookup;dur={1000 * looked_up:.1f}"
        return response

    def board(self, table: str, position: str) -> Response:
        """The picture alone, as an SVG document (for links and for other pages)."""
        try:
            self.folder.loaded(table)
            row = self.db.lookup(table, position)
            svg = self.db.game(table).draw(row["position"]).svg()
        except TablebaseError as e:
            return self.failure(e, table)
        return Response(svg, media_type="image/svg+xml")

    # -- what a table page shows -------------------------------------------------------------
    def _stats(self, table: str) -> list[Statistic]:
        if table not in self.stats:
            self.folder.connected()
            self.stats[table] = self.db.stats(table)
        return self.stats[table]

    def _picks(self, table: str) -> list[tuple[str, str, Any]]:
        """(label, position, figure) of the table's interesting positions; random ones picked anew."""
        self.folder.connected()
        columns = set(self.db.sql(f"SELECT * FROM {quote_name(table)} LIMIT 0").column_names)
        found = []
        for pick in applicable(columns):
            kept = self.picks.setdefault(table, []) if not pick.random else None
            known = [k for k in kept or [] if k[0] == pick.label]
            if known:
                found.append(known[0])
                continue
            rows = self.db.sql(pick.query.replace("{table}", quote_name(table))).to_pylist()
            if rows:
                entry = (pick.label, rows[0]["position"], rows[0]["figure"])
                found.append(entry)
                if kept is not None:
                    kept.append(entry)
        return found


def _regions(row: dict[str, Any]) -> list[str]:
    """The stored regions a board is the sum of, when the lookup names them ("[..|..] + -[...]")."""
    named = row.get("regions")
    if not named or named == "none":
        return []
    parts = [p.strip().lstrip("-").strip() for p in named.split(" + ")]
    return [p[1:-1] for p in parts if p.startswith("[") and p.endswith("]")] if len(parts) > 1 else []


def explorer_routes(folder: ServedFolder) -> APIRouter:
    """The explorer's pages and redirects from their old URLs, for the API's app (not in its OpenAPI description)."""
    explorer = Explorer(folder)
    router = APIRouter(include_in_schema=False)

    @router.get("/", response_class=HTMLResponse)
    def tables() -> HTMLResponse:
        return explorer.tables()

    @router.get("/tables/{table}", response_class=HTMLResponse)
    def table(table: str) -> HTMLResponse:
        return explorer.table(table)

    @router.get("/tables/{table}/position", response_class=HTMLResponse)
    def position(table: str, position: str = Query(""), moves: str = Query("")) -> HTMLResponse:
        return explorer.position(table, position, all_moves=moves == "all")

    @router.get("/tables/{table}/board.svg")
    def board(table: str, position: str = Query("")) -> Response:
        return explorer.board(table, position)

    for page in [route.path for route in router.routes if route.path.startswith(NEW)]:
        router.add_api_route(OLD + page[len(NEW):], moved, methods=["GET"])
    return router


def moved(request: Request) -> Response:
    """A page's old URL answered with its new one: 308, so it is permanent and keeps the method.

    The path and the query string are passed on as the client sent them, not
    decoded and quoted again, so the new URL names exactly what the old one did.
    """
    raw = request.scope.get("raw_path", b"").decode("latin-1")
    path = raw if raw.startswith(OLD) else quote(request.scope["path"])
    query = request.scope["query_string"].decode("latin-1")
    return Response(status_code=308, headers={"location": NEW + path[len(OLD):] + (f"?{query}" if query else "")})
