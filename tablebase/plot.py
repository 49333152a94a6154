"""Pictures of whole tables (``tablebase plot``), drawn by matplotlib from DuckDB aggregates.

Each picture says which columns and which shape of positions it needs; a
table that lacks them is refused in one line before anything is drawn. The
file is written beside its final name and renamed, so a failure leaves no
half-written picture.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablebase.errors import StoreError, UsageError
from tablebase.games.shapes import OUTCOME_COLOURS
from tablebase.lazy import np
from tablebase.query.database import Tablebase, quote_name

FORMATS = ("png", "svg")
# The numbers of a position written as whole numbers separated by spaces (Wythoff, Nim, Chomp).
NUMBERS = ("CASE WHEN trim(position) = '' THEN []::INTEGER[] "
           "ELSE list_transform(string_split(trim(position), ' '), lambda x: TRY_CAST(x AS INTEGER)) END")


def plot_table(db: Tablebase, table: str, kind: str, out: str | os.PathLike, position: str | None = None) -> str:
    """Draw picture ``kind`` of a table into ``out`` (.png or .svg); what was drawn, in words."""
    out = Path(out)
    ext = out.suffix.lower().lstrip(".")
    if ext not in FORMATS:
        raise UsageError(f"--out must end in .png or .svg, got {out.name!r}")
    if kind not in PICTURES:
        raise UsageError(f"unknown picture {kind!r}; pictures: {', '.join(PICTURES)}")
    if not out.parent.is_dir():
        raise UsageError(f"no folder {out.parent} for --out")
    manifest = db._manifest(table)
    if not manifest.files:
        raise StoreError(f"table {table} has no rows yet")
    if position is not None and kind != "position":
        raise UsageError(f"--position is for the picture 'position', not {kind!r}")
    from matplotlib.figure import (
        Figure,  # Agg, whatever the environment's backend: no window is opened
    )

    figure = Figure(figsize=(7, 6), dpi=110, layout="constrained")
    said = PICTURES[kind](db, table, figure, position)
    handle, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    os.close(handle)
    try:
        figure.savefig(tmp, format=ext)
        mask = os.umask(0)  # mkstemp's file is private; the picture gets the mode of any new file
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return said


def _needs(db: Tablebase, table: str, kind: str, columns: set[str], why: str) -> None:
    have = set(db.sql(f"SELECT * FROM {quote_name(table)} LIMIT 0").column_names)
    if not columns <= have:
        raise UsageError(f"picture {kind!r} does not fit table {table} ({db._manifest(table).game}): "
                             f"it needs {why}, and the table has no {', '.join(sorted(columns - have))} column")


def _widths(db: Tablebase, table: str, kind: str, most: int) -> int:
    """How many numbers the positions have at most; refused unless every position is at most ``most`` numbers."""
    low, high, bad = db.sql("SELECT min(len(n)), max(len(n)),"
                            " count(*) FILTER (WHERE len(list_filter(n, lambda x: x IS NULL)) > 0)"
                            f" FROM (SELECT {NUMBERS} AS n FROM {quote_name(table)})").to_pylist()[0].values()
    if bad or high is None or high > most:
        raise UsageError(f"picture {kind!r} does not fit table {table} ({db._manifest(table).game}): "
                             f"it needs positions of at most {most} whole numbers")
    return high


def _colour_map(ax: Any, figure: Any, grid: np.ndarray, colours: str, meaning: str, axes: tuple[str, str],
                title: str) -> None:
    """A grid of numbers as coloured cells (empty cells blank), with its colour scale."""
    image = ax.imshow(grid, origin="lower", cmap=colours, interpolation="nearest")
    figure.colorbar(image, ax=ax, shrink=0.8, label=meaning)
    ax.set_xlabel(axes[0])
    ax.set_ylabel(axes[1])
    ax.set_title(title)


def grundy_map(db: Tablebase, table: str, figure: Any, position: str | None) -> str:
    """Grundy values of two-number positions (Wythoff, two-heap Nim) as a coloured square, symmetric."""
    _needs(db, table, "grundy-map", {"grundy"}, "Grundy values")
    _widths(db, table, "grundy-map", 2)
    rows = db.sql(f"SELECT coalesce(n[1], 0) AS a, coalesce(n[2], 0) AS b, grundy "
                  f"FROM (SELECT {NUMBERS} AS n, grundy FROM {quote_name(table)})")
    a, b, g = (rows.column(c).to_numpy() for c in ("a", "b", "grundy"))
    side = int(max(a.max(initial=0), b.max(initial=0))) + 1
    grid = np.full((side, side), np.nan)
    grid[a, b] = g
    grid[b, a] = g  # either order of the two heaps is the same position
    _colour_map(figure.add_subplot(), figure, grid, "turbo", "Grundy value",
                ("second number", "first number"), f"{table}: Grundy values")
    return f"Grundy values of {len(g):,} positions, {side} x {side}"


def p_positions(db: Tablebase, table: str, figure: Any, position: str | None) -> str:
    """The P-positions: of two-number positions, the cells (a, b); of three, for each (b, c) the first number."""
    _needs(db, table, "p-positions", {"outcome"}, "outcomes")
    width = _widths(db, table, "p-positions", 3)
    ax = figure.add_subplot()
    source = f"(SELECT {NUMBERS} AS n FROM {quote_name(table)} WHERE outcome = 'P')"
    if width <= 2:
        rows = db.sql(f"SELECT coalesce(n[1], 0) AS a, coalesce(n[2], 0) AS b FROM {source}")
        a, b = rows.column("a").to_numpy(), rows.column("b").to_numpy()
        ax.scatter(np.concatenate([a, b]), np.concatenate([b, a]), s=6, marker="s", color=OUTCOME_COLOURS["P"])
        ax.set_xlabel("first number")
        ax.set_ylabel("second number")
        ax.set_aspect("equal")
        ax.set_title(f"{table}: the {len(a):,} P-positions")
        return f"{len(a):,} P-positions"
    rows = db.sql(f"SELECT coalesce(n[2], 0) AS b, coalesce(n[3], 0) AS c, min(coalesce(n[1], 0)) AS a, "
                  f"count(*) AS found FROM {source} GROUP BY ALL")
    b, c, a = (rows.column(k).to_numpy() for k in ("b", "c", "a"))
    grid = np.full((int(c.max(initial=0)) + 1, int(b.max(initial=0)) + 1), np.nan)
    grid[c, b] = a
    _colour_map(ax, figure, grid, "viridis", "first number of the P-position", ("second number", "third number"),
                f"{table}: P-positions, the first number for each second and third")
    return f"{int(rows.column('found').to_numpy().sum()):,} P-positions over {len(a):,} cells"


def outcomes(db: Tablebase, table: str, figure: Any, position: str | None) -> str:
    """Positions per level, stacked by outcome."""
    _needs(db, table, "outcomes", {"outcome"}, "outcomes")
    rows = db.sql(f"SELECT level, outcome, count(*) AS positions FROM {quote_name(table)} GROUP BY ALL ORDER BY ALL")
    levels = sorted(set(rows.column("level").to_pylist()))
    at = {level: i for i, level in enumerate(levels)}
    ax = figure.add_subplot()
    bottom = np.zeros(len(levels))
    names = sorted(set(rows.column("outcome").to_pylist()), key=lambda o: "PNLRD".find(o) % 9)
    for name in names:
        counts = np.zeros(len(levels))
        for r in rows.to_pylist():
            if r["outcome"] == name:
                counts[at[r["level"]]] = r["positions"]
        ax.bar(levels, counts, bottom=bottom, label=name, color=OUTCOME_COLOURS.get(name, "#6366f1"), width=0.85)
        bottom += counts
    ax.set_xlabel("level")
    ax.set_ylabel("positions")
    ax.legend(title="outcome")
    ax.set_title(f"{table}: positions per level and outcome")
    return f"{int(bottom.sum()):,} positions over {len(levels)} levels"


def drawn_position(db: Tablebase, table: str, figure: Any, position: str | None) -> str:
    """One position drawn by its game, with its figures (a value, a Grundy value, a score) as its title."""
    if position is None:
        raise UsageError("the picture 'position' needs --position TEXT")
    row = db.lookup(table, position)
    shown = [f"{k} {v}" for k, v in row.items()
             if k not in ("table", "position", "key", "level", "moves", "value_id", "regions", "searched", "note",
                          "warning") and not k.startswith("best_") and v is not None][:4]
    ax = figure.add_subplot()
    db._game(table).draw(row["position"]).plot(ax)
    ax.set_title(f"{row['position']}\n" + ", ".join(shown), fontsize=11)
    return f"{row['position']}: {', '.join(shown)}"


PICTURES: dict[str, Callable[[Tablebase, str, Any, str | None], str]] = {
    "grundy-map": grundy_map,
    "p-positions": p_positions,
    "outcomes": outcomes,
    "position": drawn_position,
}
