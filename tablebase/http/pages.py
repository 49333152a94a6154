"""The explorer's HTML pages: the tables, a table's statistics and charts, a position with its board and moves.

Pages are rendered on the server from Jinja templates (autoescaped) and need
no JavaScript. They read the folder as the JSON API does, through the same
``ServedFolder``: lookups are its kind's, statistics are queries/*.sql, and
boards are drawn by the game's ``draw``, each cell it makes a link leading to
the position a click on it sets up (``boards``). A position's page and a line
carry the positions the reader came through (``trail``). The routes are
``explorer_routes``'s.
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

from tablebase.errors import DamagedTable, OverLimit, PositionError, TablebaseError
from tablebase.games.shapes import OUTCOME_COLOURS
from tablebase.http.api import status_of
from tablebase.http.boards import LINE_PX, Outline, outlined, position_board, region_boards
from tablebase.http.charts import cell, chart_of
from tablebase.http.folder import ServedFolder
from tablebase.http.interesting import applicable
from tablebase.http.trail import page_of, query, steps, trail_of
from tablebase.http.verdicts import move_verdict, position_verdict
from tablebase.query.views import quote_name
from tablebase.results import Statistic
from tablebase.store.manifest import FILE_NAME

STAT_ROWS = 40  # rows of a statistic shown under its chart
MOVES_SHOWN = 200  # moves listed unless all are asked for: Wythoff 1024 has 1,300 from one position
LINE_SHOWN = 60  # boards of a line of best play drawn on its page; the rest are in its JSON
IDENTITY = {"key", "position", "id", "value_id"}  # which row, or which value: not what a position is worth
TITLES = {400: "Bad position", 404: "Not found", 503: "Game unavailable"}
OLD, NEW = "/table/", "/tables/"  # where a table's pages were, and are


def templates() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("tablebase.http", "templates"),
                             autoescape=True)
    env.filters["cell"] = cell
    env.filters["q"] = lambda text: quote(str(text), safe="")
    env.globals["outcome_colours"] = OUTCOME_COLOURS
    return env


class Explorer:
    """The pages over one open folder, which the API shares.

    A table's statistics are read once, under that table's lock only; a page names the folder and its
    tables by their names, never by a path. A page that cannot be given says why, with the API's status: 400
    for a position (or a move) that is not one of the table's, 404 for a missing table, 503 for a game this
    server cannot load, a table whose files are damaged, or an answer beyond the server's bounds.
    """

    def __init__(self, folder: ServedFolder) -> None:
        self.folder = folder
        self.db = folder.db
        self.env = templates()
        # Statistics and picks are read once per table: bounded by the tables of the folder.
        self.stats: dict[str, list[Statistic]] = {}
        self.picks: dict[str, list[tuple[str, str, Any]]] = {}
        self.columns: dict[str, set[str]] = {}
        self.starts: dict[str, dict[str, Any] | None] = {}

    def page(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        started = time.perf_counter()
        html = self.env.get_template(name).render(**context)
        response = HTMLResponse(html, status_code=status)
        response.headers["Server-Timing"] = f"render;dur={1000 * (time.perf_counter() - started):.1f}"
        return response

    def failure(self, error: TablebaseError, table: str | None = None) -> HTMLResponse:
        """A page naming the problem with the API's status and reason: 400 a position that is not the table's,
        404 nothing there by that name, 503 a game the server cannot load or a damaged table."""
        status = status_of(error)
        title = next((t for kind, t in NAMED if isinstance(error, kind)),
                     TITLES[status] if status != 400 or isinstance(error, PositionError) else "Bad request")
        return self.page("error.html", status, title=title, reason=self.folder.public(str(error)),
                         table=table)

    def guarded(self, table: str, call: Callable[[], Any]) -> Any:
        """``call()`` under ``table``'s lock: what it loads of the table is loaded once."""
        with self.folder.loading(table):
            return call()

    # -- pages ---------------------------------------------------------------------
    def tables(self) -> HTMLResponse:
        listed = []
        for row in self.db.tables():
            written = self.db._location.modified(f"{row['table']}/{FILE_NAME}") or 0.0
            built = datetime.fromtimestamp(written, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            listed.append({**row, "built": built,
                           "params": ", ".join(f"{k.replace('_', '-')} {v}" for k, v in row["params"].items())})
        return self.page("tables.html", tables=listed, folder=self.folder.name)

    def table(self, table: str) -> HTMLResponse:
        try:
            manifest = self.db._manifest(table)
            game = self.guarded(table, lambda: self.db._game(table))
            stats = self.guarded(table, lambda: self._stats(table))
            picks = self.guarded(table, lambda: self._picks(table))
        except TablebaseError as e:
            return self.failure(e, table)
        shown = [{"title": s.title, "chart": chart_of(s.rows, s.chart), "columns": s.rows.column_names,
                  "rows": s.rows.slice(0, STAT_ROWS).to_pylist(), "more": max(s.rows.num_rows - STAT_ROWS, 0)}
                 for s in stats]
        start = self.guarded(table, lambda: self._start(table))
        return self.page("table.html", table=table, manifest=manifest, game=game, stats=shown, picks=picks,
                         start=start)

    def position(self, table: str, position: str, all_moves: bool = False, move: str = "",
                 side: str = "", came: list[str] | None = None) -> HTMLResponse:
        started = time.perf_counter()
        try:
            self.folder.loaded(table)
            row = self.db.lookup(table, position)
            looked_up = time.perf_counter() - started
            game = self.db._stored_table(table).kind.game  # as written: it draws, and says what a move changes
            stored = self.guarded(table, lambda: self._columns(table))
            chosen = _move_named(row, move, side) if move else None
            board, outlines = position_board(game, row, outlined(row, chosen), self._edits(table, row))
            regions = region_boards(game, _regions(row))
        except TablebaseError as e:
            return self.failure(e, table)
        figures = {k: v for k, v in row.items() if k in stored and k not in IDENTITY}
        columns: list[str] = []
        for m in row["moves"]:
            columns += [c for c in m if c in stored and c not in IDENTITY and c != "move" and c not in columns]
        moves = row["moves"] if all_moves else row["moves"][:MOVES_SHOWN]
        came = trail_of(came or [])
        response = self.page("position.html", table=table, row=row, figures=figures, board=board, regions=regions,
                             columns=columns, game=game, looked_up=looked_up, moves=moves, chosen=chosen,
                             verdict=position_verdict(row), said=move_verdict, outlines=outlines,
                             hidden=len(row["moves"]) - len(moves), trail=steps(table, came),
                             kept=query(came), onward=query([*came, row["position"]]))
        response.headers["Server-Timing"] += f", lookup;dur={1000 * looked_up:.1f}"
        return response

    def line(self, table: str, position: str, first: str = "", came: list[str] | None = None) -> HTMLResponse:
        """Best play from a position to the end: each position's board with the move played from it outlined,
        its outcome in words and its figures, and a link to its page."""
        came = trail_of(came or [])
        try:
            self.folder.loaded(table)
            found = self.db.line(table, position, first or None)
            game = self.db._stored_table(table).kind.game
            stored = self.guarded(table, lambda: self._columns(table))
            positions = [step["position"] for step in found["steps"]]
            shown = []
            for i, step in enumerate(found["steps"][:LINE_SHOWN]):
                after = positions[i + 1] if i + 1 < len(positions) else None
                played = [] if step["move"] is None or after is None else [Outline(
                    {"move": step["move"], "position": after, "side": step.get("mover")},
                    f"{step['mover']}'s move" if step.get("mover") else "the move played")]
                board, said = position_board(game, step, played, lambda target: None, LINE_PX)
                shown.append({"step": step, "board": board, "said": said, "verdict": position_verdict(step),
                              "href": page_of(table, step["position"], [*came, *positions[:i]]),
                              # the move played is the best one: the best_* figures would say it again
                              "figures": {k: v for k, v in step.items() if k in stored and k not in IDENTITY
                                          and not k.startswith("best_")}})
        except TablebaseError as e:
            return self.failure(e, table)
        return self.page("line.html", table=table, line=found, shown=shown, hidden=len(positions) - len(shown),
                         back=page_of(table, found["position"], came), trail=steps(table, came), first=first)

    def board(self, table: str, position: str) -> Response:
        """The picture alone, as an SVG document (for links and for other pages)."""
        try:
            self.folder.loaded(table)
            row = self.db.lookup(table, position)
            svg = self.db._stored_table(table).kind.game.draw(row["position"]).svg()
        except TablebaseError as e:
            return self.failure(e, table)
        return Response(svg, media_type="image/svg+xml")

    def _edits(self, table: str, row: dict[str, Any]) -> Callable[[str], str | None]:
        """Where a click on the board leads (``_edited``), each position asked once a page."""
        found: dict[str, str | None] = {}

        def href(target: str) -> str | None:
            if target not in found:
                found[target] = self._edited(table, row, target)
            return found[target]

        return href

    def _edited(self, table: str, row: dict[str, Any], target: str) -> str | None:
        """The page of the position ``target`` sets up; None if the table does not hold it, or it is ``row``'s."""
        try:
            probed = self.db.probe(table, target)
        except TablebaseError:
            return None
        if "position" in probed:  # spelt as the table spells it (a board may share its key with its mirror image)
            if probed["position"] == row["position"]:
                return None
        elif probed.get("key") == row.get("key"):
            return None
        spelt = probed.get("position", target)
        return f"/tables/{quote(table, safe='')}/position?position={quote(spelt, safe='')}"

    # -- what a table page shows -------------------------------------------------------------
    def _columns(self, table: str) -> set[str]:
        """What SQL holds of the table's positions: the columns of its view and of the views beside it, named
        ``{table}_{word}`` (a partizan table's values), so that a page shows a lookup's figures and not the
        rest of what it says (which parts were searched, which regions a board is the sum of)."""
        if table not in self.columns:
            self.folder.connected()
            views = self.db.sql("SELECT table_name, column_name FROM information_schema.columns").to_pylist()
            self.columns[table] = {v["column_name"] for v in views if _beside(v["table_name"], table)}
        return self.columns[table]

    def _start(self, table: str) -> dict[str, Any] | None:
        """Where play starts: the position of the table's top level, or the largest of them (by key) where it
        holds several, with how many it holds; None for a table without rows."""
        if table not in self.starts:
            self.folder.connected()
            t = quote_name(table)
            rows = self.db.sql(f"SELECT position, count(*) OVER () AS positions, level FROM {t} WHERE level = "
                               f"(SELECT max(level) FROM {t}) ORDER BY key DESC LIMIT 1").to_pylist()
            self.starts[table] = rows[0] if rows else None
        return self.starts[table]

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


def _beside(view: str, table: str) -> bool:
    """Whether ``view`` is ``table``'s own or one of the views beside it, not another table's."""
    return view == table or view.startswith(f"{table}_") and "_" not in view[len(table) + 1:]


class NoSuchMove(PositionError):
    """A move asked for (``&move=``) that the position does not have: a 400, as a position that is not one."""


#: the titles of errors that their status does not name alone
NAMED = ((NoSuchMove, "Bad move"), (DamagedTable, "Table unavailable"), (OverLimit, "Over this server's bounds"))


def _move_named(row: dict[str, Any], move: str, side: str) -> dict[str, Any]:
    """The move of ``row`` named ``move`` (made by ``side``, if given); NoSuchMove if it has none."""
    for m in row["moves"]:
        if m["move"] == move and (not side or m.get("side", "").lower() == side.lower()):
            return m
    named = f"{side}'s move" if side else "move"
    raise NoSuchMove(f"{row['table']}: no {named} {move!r} from position {row['position']!r}")


def _regions(row: dict[str, Any]) -> list[str]:
    """The stored regions a board is the sum of, when the lookup names them ("[..|..] + -[...]")."""
    named = row.get("regions")
    if not named or named == "none":
        return []
    parts = [p.strip().lstrip("-").strip() for p in named.split(" + ")]
    return [p[1:-1] for p in parts if p.startswith("[") and p.endswith("]")] if len(parts) > 1 else []


def explorer_routes(folder: ServedFolder) -> APIRouter:
    """The explorer's pages and redirects from their old URLs, for the API's app (not in its OpenAPI description).

    A table's pages live under the noun of its JSON API, ``/tables/{table}``:

        GET /                                          the tables
        GET /tables/{table}                            a table: statistics, charts, positions worth a look
        GET /tables/{table}/position?position=...      a position: its outcome in words, its board, figures and
                                                       moves (&moves=all for all; &move=NAME, with &side=Left or
                                                       Right in a game of two sides, outlines that move)
        GET /tables/{table}/best-play?position=...     best play from a position to the end: the boards in order,
                                                       each with its figures and the move that leads on (&first=Left
                                                       or Right in a game of two sides)
        GET /tables/{table}/board.svg?position=...     a position's picture alone

    Each is answered at ``/table/...`` too, where the pages were first, with a permanent redirect (308) to
    the same URL under ``/tables/``, so that links and bookmarks made then still lead to the page.
    """
    explorer = Explorer(folder)
    router = APIRouter(include_in_schema=False)

    @router.get("/", response_class=HTMLResponse)
    def tables() -> HTMLResponse:
        return explorer.tables()

    @router.get("/tables/{table}", response_class=HTMLResponse)
    def table(table: str) -> HTMLResponse:
        return explorer.table(table)

    @router.get("/tables/{table}/position", response_class=HTMLResponse)
    def position(table: str, position: str = Query(""), moves: str = Query(""), move: str = Query(""),
                 side: str = Query(""), came: list[str] = Query([], alias="from")) -> HTMLResponse:
        return explorer.position(table, position, all_moves=moves == "all", move=move, side=side, came=came)

    @router.get("/tables/{table}/best-play", response_class=HTMLResponse)
    def line(table: str, position: str = Query(""), first: str = Query(""),
             came: list[str] = Query([], alias="from")) -> HTMLResponse:
        return explorer.line(table, position, first, came)

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
