"""What a table's misère outcomes say of the game as a whole, kept in its manifest: how many positions are lost.

A table that keeps misère figures (``manifest.misere``) gets, once every file
of rows is built, one task that reads their ``misere_outcome`` column back and
counts the misère P-positions. The manifest keeps the count and its share of
the positions as ``figures["misere"]``, which ``tablebase tables --json`` and
``tablebase stats`` show. Verify counts again over the rows it derives. Other
tables have no such figure: every step here does nothing for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.builders.artifact_build import ArtifactBuild, ArtifactCheck, Say
from tablebase.lazy import pa, pc
from tablebase.solve import Solver
from tablebase.store import Manifest, Piece, read_files
from tablebase.store.placed import Place

FIGURE = "misere"


def misere_figures(root: Place, manifest: Manifest) -> dict[str, Any]:
    """On a worker: the misère P-positions of a built table and their share, read back a file at a time."""
    lost, positions = 0, 0
    for piece in manifest.layout().pieces:
        record = {piece.name: manifest.files[piece.name]}
        outcomes = read_files(root, manifest.table, record, ["misere_outcome"]).column("misere_outcome")
        lost, positions = lost + _lost(outcomes), positions + len(outcomes)
    return _figures(lost, positions)


def _lost(outcomes: Any) -> int:
    return pc.sum(pc.equal(outcomes.cast(pa.string()), "P")).as_py() or 0


def _figures(lost: int, positions: int) -> dict[str, Any]:
    return {"p_positions": lost, "p_share": round(lost / positions, 6) if positions else None}


def _rows_whole(manifest: Manifest) -> bool:
    return bool(manifest.files) and all(piece.name in manifest.files for piece in manifest.layout().pieces)


class MisereFigures(ArtifactBuild):
    """The manifest's ``figures["misere"]``: no files, one finishing task."""

    def prepare(self, root: Place, manifest: Manifest) -> None:
        manifest.figures.pop(FIGURE, None)  # counted again once the table is whole

    def piece(self, solver: Solver, rows: pa.Table, root: str, table: str, piece: Piece, durable: bool) -> None:
        return None

    def record(self, manifest: Manifest, record: dict | None) -> None:
        pass

    def finishing_tasks(self, root: Place, manifest: Manifest) -> list[tuple[str, Callable, tuple]]:
        if not manifest.misere or FIGURE in manifest.figures or not _rows_whole(manifest):
            return []
        return [("misere-figures", misere_figures, (root, manifest))]

    def finished(self, root: Place, manifest: Manifest, records: list[dict], say: Say) -> None:
        if records:
            manifest.figures = {**manifest.figures, FIGURE: records[0]}
            say(f"{records[0]['p_positions']:,} positions lost in misère play (P), a share of "
                f"{records[0]['p_share']}")

    def complete(self, manifest: Manifest) -> bool:
        return not manifest.misere or FIGURE in manifest.figures

    def checker(self, solver: Solver) -> MisereCheck:
        return MisereCheck()


class MisereCheck(ArtifactCheck):
    """The count found again from the rows verify derives, compared with the manifest's."""

    def __init__(self) -> None:
        self.lost = self.positions = 0

    def add(self, derived: pa.Table, stored: pa.Table, level: int) -> None:
        if "misere_outcome" in derived.column_names:
            self.lost += _lost(derived.column("misere_outcome"))
        self.positions += derived.num_rows

    def problems(self, root: Place, manifest: Manifest) -> list[tuple[str, str]]:
        if not manifest.misere:
            return []
        recorded, found = manifest.figures.get(FIGURE), _figures(self.lost, self.positions)
        return [] if recorded == found else [("figures", f"misere recorded {recorded!r}, derived {found!r}")]
