"""A table's named statistics: the queries shipped in ``queries/*.sql`` that apply to it, its storage, and
what its build found of the game as a whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablebase.errors import StoreError
from tablebase.kinds import kind_named
from tablebase.lazy import pa
from tablebase.query.views import quote_name
from tablebase.results import Statistic
from tablebase.store import Manifest
from tablebase.store.footers import checked_footers


def named_queries() -> dict[str, str]:
    """The named statistics shipped in queries/*.sql, by file stem."""
    from importlib import resources  # not for a program that only looks positions up

    folder = resources.files("tablebase") / "queries"
    return {p.name[:-4]: p.read_text() for p in sorted(folder.iterdir(), key=lambda p: p.name)
            if p.name.endswith(".sql")}


def table_statistics(root: Path, m: Manifest, table: str, sql: Callable[[str], pa.Table]) -> list[Statistic]:
    """The statistics of ``Tablebase.stats``, each query run by ``sql``."""
    if not m.files:
        raise StoreError(f"table {table} has no rows yet")
    checked_footers(root, m)  # every row is read: a small file may expand beyond what it says
    columns = set(sql(f"SELECT * FROM {quote_name(table)} LIMIT 0").column_names)
    out = []
    for name, text in named_queries().items():
        needs = _header(text, "needs")
        if needs and not set(needs.split()) <= columns:
            continue
        title = _header(text, "title") or name
        rows = sql(text.replace("{table}", quote_name(table)))
        out.append(Statistic(name, title, rows, _header(text, "chart") or ""))
    # Files beside the rows count too (a partizan table's values table).
    beside = [f for a in kind_named(m.kind).artifacts for f in a.files(m).values()]
    values = sum(f["bytes"] for f in beside)
    total = m.bytes + values
    storage = pa.table(
        {
            "positions": [m.positions],
            "files": [len(m.files) + len(beside)],
            "row_bytes": [m.bytes],
            "values_bytes": [values],
            "bytes_per_position": [round(total / max(m.positions, 1), 3)],
            "bits_per_position": [round(8 * total / max(m.positions, 1), 2)],
        }
    )
    out.append(Statistic("storage", "storage on disk", storage))
    if m.quotient:
        out.append(Statistic(QUOTIENT_SHOWN, "the misère quotient kept beside the table: its order, P-portion, the "
                             "heaps it covers and the heap it is stable from (observed)",
                             pa.Table.from_pylist([quotient_figures(m)])))
    return out + figures_statistics(m.figures)


#: of a manifest's figures, those the catalogue of tables shows: an octal table's period, and the misère
#: P-positions' count and share of a table with misère figures
FIGURES_SHOWN = ("period", "misere")
#: the name the catalogue and the statistics give an octal table's misère quotient
QUOTIENT_SHOWN = "misere_quotient"


def quotient_figures(m: Manifest) -> dict[str, Any]:
    """What the manifest says of a table's misère quotient, its file's record aside."""
    return {k: v for k, v in m.quotient.items() if k != "files"}


def figures_statistics(figures: dict[str, Any]) -> list[Statistic]:
    """What the build found of the game as a whole (an octal table's period and rare values, the misère
    P-positions of a table with misère figures), as statistics: a row of figures each, and the rare heaps with
    their values where the manifest lists them."""
    out = []
    if "misere" in figures:
        out.append(Statistic("misere", "positions lost in misère play (P): their count and share",
                             pa.Table.from_pylist([figures["misere"]])))
    if "heaps" not in figures:
        return out
    period, rare = figures.get("period") or {}, figures.get("rare") or {}
    row = {"heaps": figures.get("heaps"), "preperiod": period.get("preperiod"), "period": period.get("period"),
           "proven_at": period.get("proven_at"), "largest": figures.get("largest"),
           "largest_heap": figures.get("largest_heap"), "rare_mask": rare.get("mask"), "rare_count": rare.get("count")}
    out.append(Statistic("figures", "period (null while unproven), largest value and rare values of the heaps",
                         pa.Table.from_pylist([row])))
    if "heaps" in rare:
        out.append(Statistic("rare_values", "rare values: the heaps whose value is rare, by the mask",
                             pa.table({"heap": pa.array(rare["heaps"], pa.int64()),
                                       "grundy": pa.array(rare["values"], pa.int64())})))
    return out


def _header(text: str, field: str) -> str | None:
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(f"-- {field}:"):
            return line.split(":", 1)[1].strip()
    return None
